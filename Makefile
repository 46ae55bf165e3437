# `make book` and `make test` each set up .venv themselves (see README).
PYTHON ?= python3
SHELL  := /bin/bash
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.olearn-installed

.PHONY: book pdf test bench bench-quick results clean strip-outputs

# Create the virtual environment once.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# (Re)install olearn and its dev dependencies only when pyproject.toml changed.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[dev]"
	touch $@

# Build the HTML from the stored full runs in book/results/ (quick mode: each page re-runs a
# subset and asserts it against them). Each page is executed once per `make test` + `make book`:
# the build reads the pages that `make test` executed and validated on this very tree from the
# jupyter-cache $(BOOK)/_build/.jupyter_cache and executes the others (tests/book_cache.py
# empties the cache first when it is not from a test run of this tree). `--all` re-reads every
# page on every build (without it Sphinx re-reads only changed sources, so a second build after
# a failed one would serve the failed pages and exit 0; a failed page is never cached);
# -W makes any error or warning fail the build.
# The build never writes tracked files: it checks `git status` before and after.
BOOK     ?= book
JB_BUILD := $(VENV)/bin/jupyter-book build --all -W --keep-going
book: $(STAMP)
	@before=$$(git status --porcelain 2>/dev/null); \
	OLEARN_QUICK=1 MPLBACKEND=Agg $(PY) tests/book_cache.py prepare $(BOOK) || exit 1; \
	OLEARN_QUICK=1 MPLBACKEND=Agg $(JB_BUILD) $(BOOK) || exit 1; \
	after=$$(git status --porcelain 2>/dev/null); \
	[ "$$before" = "$$after" ] || { echo "make book: the build changed the working tree:"; \
	  diff <(echo "$$before") <(echo "$$after"); exit 1; }

# The PDF edition, book/_build/latex/olearn.pdf: the same sources through Jupyter Book's LaTeX
# builder (XeLaTeX, TeX Live from Debian: texlive-xetex texlive-latex-extra texlive-fonts-extra
# tex-gyre fonts-freefont-otf latexmk xindy), then checked by tests/pdf_check.py (cover, raw TeX,
# unresolved references, figures, pages rendered with pdftoppm). Pages come from the book's
# jupyter-cache as for `make book` (after `make test` or `make book`, none is executed again).
# Tracked files untouched.
pdf: $(STAMP)
	@before=$$(git status --porcelain 2>/dev/null); \
	OLEARN_QUICK=1 MPLBACKEND=Agg $(PY) tests/book_cache.py prepare $(BOOK) || exit 1; \
	OLEARN_QUICK=1 MPLBACKEND=Agg $(JB_BUILD) --builder pdflatex $(BOOK) || exit 1; \
	after=$$(git status --porcelain 2>/dev/null); \
	[ "$$before" = "$$after" ] || { echo "make pdf: the build changed the working tree:"; \
	  diff <(echo "$$before") <(echo "$$after"); exit 1; }
	$(PY) tests/pdf_check.py $(BOOK)/_build/latex/olearn.pdf --png-dir $(BOOK)/_build/pdf-pages

# Quick mode, as `make book`. TEST_JOBS pytest-xdist workers (default: one a core); `--dist
# loadscope` keeps a page's cells, which share one kernel, on one worker, and a test module's
# tests (its fixtures, its compiled specialisations) together. The scopes are handed out
# costliest first, by the CPU seconds of a measured run (tests/scope_costs.json; `pytest
# --cpu-report=FILE` measures them, tests/cpu_costs.py); --no-loadscope-reorder keeps that
# order (xdist's own sorts by number of tests and sent the pages last). Every page runs once
# under nbval (every cell without error, the tagged cells' outputs compared) and, when all its
# cells pass, goes to the book's jupyter-cache for `make book` (--book-cache, tests/book_cache.py).
# A page's kernel gets 300 s to start on a loaded machine, and a start that dies is retried.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: $(STAMP)
	OLEARN_QUICK=1 MPLBACKEND=Agg $(PY) -m pytest -n $(TEST_JOBS) --dist loadscope --no-loadscope-reorder \
	  tests book --nbval-lax --nbval-current-env --nbval-kernel-startup-timeout=300 \
	  --book-cache=$(BOOK)/_build/.jupyter_cache \
	  --doctest-modules olearn/linear olearn/second_order olearn/kernel olearn/selection

# Every benchmark of benchmarks/, one recorded run: rewrites benchmarks/*.md (each stamped with
# the run, date, commit, machine and load average) and the README's speed table from them.
bench: $(STAMP)
	env -u OLEARN_QUICK $(PY) benchmarks/run_all.py

# The same at small sizes, tables to a temporary folder: a smoke test, not a measurement.
bench-quick: $(STAMP)
	$(PY) benchmarks/run_all.py --quick

# Re-run every full experiment (OLEARN_QUICK unset) and rewrite book/results/: the pages that
# store a full run. Only from a committed tree, so that each stored provenance names the exact
# code (the executed notebooks go to a temporary folder; the pages themselves are untouched).
#
# On a Dask cluster: `make results DASK_SCHEDULER=tcp://host:8786` exports
# OLEARN_DASK_SCHEDULER, so every joblib task of the experiments goes to that scheduler's
# workers (olearn/experiments/cluster.py; the workers need this commit of olearn).
DASK_SCHEDULER ?=
RESULTS_ENV  := env -u OLEARN_QUICK $(if $(DASK_SCHEDULER),OLEARN_DASK_SCHEDULER=$(DASK_SCHEDULER))
RESULTS_JOBS := $(if $(DASK_SCHEDULER),-1,1)
RESULT_PAGES := perceptron_pa/experiment first_order/experiment first_order/voting regularized/experiment \
                duol/reproduction single_pass/tables
results: $(STAMP)
	@git diff --quiet HEAD -- . ':(exclude)book/results' || \
	  { echo "make results: commit your changes first (provenance records the commit)"; exit 1; }
	out=$$(mktemp -d) && for page in $(RESULT_PAGES); do \
	  $(RESULTS_ENV) $(VENV)/bin/jupyter nbconvert --to notebook --execute \
	    --ExecutePreprocessor.timeout=-1 --output-dir "$$out" book/$$page.ipynb || exit 1; done
	$(RESULTS_ENV) $(PY) -c "from olearn.experiments import arow; arow.reproduce('book/results/arow', n_jobs=$(RESULTS_JOBS))"
	$(RESULTS_ENV) $(PY) book/results/sparse_cw/make_table2.py main PA DCD BCW-L1 BCW-L2
	$(RESULTS_ENV) $(PY) book/results/sparse_cw/make_table2.py second AROW CW NAROW SCW SCW2 SOP
	$(RESULTS_ENV) $(PY) book/results/sparse_cw/make_figure1.py
	$(RESULTS_ENV) $(PY) -m olearn.experiments.practitioners book/results/practitioners
	$(RESULTS_ENV) $(PY) -m olearn.experiments.missing_claims book/results   # reads regularized/runs.csv
	$(RESULTS_ENV) $(PY) -m olearn.experiments.claims 40 --store book/results/regularized

# The repository's convention for notebook outputs (tests/test_book_outputs.py): none stored,
# except the cells tagged nbval-check-output, whose output nbval compares. NOTEBOOKS= narrows it.
NOTEBOOKS ?= book
strip-outputs: $(STAMP)
	$(PY) -m olearn._nbtools strip $(NOTEBOOKS)

clean:
	rm -rf book/_build .pytest_cache .numba_cache
