# `make book` and `make test` each set up .venv themselves (see README).
PYTHON ?= python3
SHELL  := /bin/bash
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.olearn-installed

.PHONY: book test bench results clean strip-outputs

# Create the virtual environment once.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# (Re)install olearn and its dev dependencies only when pyproject.toml changed.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[dev]"
	touch $@

# Build the HTML from the stored full runs in book/results/ (quick mode: each page re-runs a
# subset and asserts it against them). `--all` re-reads and re-executes every page on every
# build (without it Sphinx re-reads only changed sources, so a second build after a failed one
# would serve the failed pages and exit 0); -W makes any error or warning fail the build.
# The build never writes tracked files: it checks `git status` before and after.
BOOK     ?= book
JB_BUILD := $(VENV)/bin/jupyter-book build --all -W --keep-going
book: $(STAMP)
	@before=$$(git status --porcelain 2>/dev/null); \
	OLEARN_QUICK=1 MPLBACKEND=Agg $(JB_BUILD) $(BOOK) || exit 1; \
	after=$$(git status --porcelain 2>/dev/null); \
	[ "$$before" = "$$after" ] || { echo "make book: the build changed the working tree:"; \
	  diff <(echo "$$before") <(echo "$$after"); exit 1; }

test: $(STAMP)
	$(PY) -m pytest tests book --nbval-lax --nbval-current-env --doctest-modules olearn/linear olearn/second_order olearn/kernel olearn/selection

bench: $(STAMP)
	$(PY) benchmarks/throughput.py

# Re-run every full experiment (OLEARN_QUICK unset) and rewrite book/results/: the pages that
# store a full run. Only from a committed tree, so that each stored provenance names the exact
# code (the executed notebooks go to a temporary folder; the pages themselves are untouched).
RESULT_PAGES := perceptron_pa/experiment first_order/experiment first_order/voting regularized/experiment \
                duol/reproduction single_pass/tables
results: $(STAMP)
	@git diff --quiet HEAD -- . ':(exclude)book/results' || \
	  { echo "make results: commit your changes first (provenance records the commit)"; exit 1; }
	out=$$(mktemp -d) && for page in $(RESULT_PAGES); do \
	  env -u OLEARN_QUICK $(VENV)/bin/jupyter nbconvert --to notebook --execute \
	    --ExecutePreprocessor.timeout=-1 --output-dir "$$out" book/$$page.ipynb || exit 1; done
	env -u OLEARN_QUICK $(PY) -c "from olearn.experiments import arow; arow.reproduce('book/results/arow')"
	env -u OLEARN_QUICK $(PY) book/results/sparse_cw/make_table2.py main PA DCD BCW-L1 BCW-L2
	env -u OLEARN_QUICK $(PY) book/results/sparse_cw/make_table2.py second AROW CW NAROW SCW SCW2 SOP
	env -u OLEARN_QUICK $(PY) book/results/sparse_cw/make_figure1.py

# The repository's convention for notebook outputs (tests/test_book_outputs.py): none stored,
# except the cells tagged nbval-check-output, whose output nbval compares. NOTEBOOKS= narrows it.
NOTEBOOKS ?= book
strip-outputs: $(STAMP)
	$(PY) -m olearn._nbtools strip $(NOTEBOOKS)

clean:
	rm -rf book/_build .pytest_cache .numba_cache
