# `make book` and `make test` each set up .venv themselves (see README).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.olearn-installed

.PHONY: book test bench clean

# Create the virtual environment once.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# (Re)install olearn and its dev dependencies only when pyproject.toml changed.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[dev]"
	touch $@

book: $(STAMP)
	$(VENV)/bin/jupyter-book build book -W --keep-going

test: $(STAMP)
	$(PY) -m pytest tests book --nbval-lax --nbval-current-env

bench: $(STAMP)
	$(PY) benchmarks/throughput.py

clean:
	rm -rf book/_build .pytest_cache .numba_cache
