# Two commands do everything on a fresh machine: `make book` and `make test`.
# Both create .venv (if absent) and install the pinned requirements once.

SHELL := /bin/bash
# The Python that builds .venv (`make setup PYTHON=python3.13`). Given explicitly, a .venv built
# by another Python is rebuilt; left out, the existing .venv keeps its own Python.
ifeq ($(origin PYTHON),undefined)
PYTHON := python3
PYTHON_GIVEN :=
else
PYTHON_GIVEN := 1
endif
# The Python versions the book and the package are tested with (README, CI matrix, pyproject).
SUPPORTED_PYTHONS := 3.11 3.12 3.13
VENV := .venv
BIN := $(VENV)/bin
# What .venv was built from: the Python version and the lock file's hash (setup rebuilds .venv
# when either differs); PACKAGE_STAMP: mlnotes installed editable from pyproject.toml.
STAMP := $(VENV)/.installed
PACKAGE_STAMP := $(VENV)/.package
PORT ?= 8000
# `make lab PORT=9999 NO_BROWSER=1`: JupyterLab's port (default 8888) and no browser window.
LAB_PORT = $(if $(filter command line environment override,$(origin PORT)),$(PORT),8888)
NO_BROWSER ?=

# Reproducible numbers: one BLAS thread everywhere (notebooks also pin it themselves).
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export JUPYTER_PLATFORM_DIRS := 1

.PHONY: setup book pdf test-pdf test peers test-install test-unit test-notebooks test-notebooks-kernel test-browser serve lab bench notebooks lint clean distclean FORCE

setup: $(PACKAGE_STAMP)

# Runs on every make (FORCE) but rebuilds only when the stamp does not match: a .venv built by
# another Python, from another requirements.txt, or left unfinished (no stamp) is removed and
# built again, so a failed setup never sticks.
$(STAMP): FORCE
	@set -euo pipefail; \
	lock="$$( (sha256sum requirements.txt 2>/dev/null || shasum -a 256 requirements.txt) | cut -c1-16)"; \
	have="$$($(BIN)/python -c 'import platform; print(platform.python_version())' 2>/dev/null || true)"; \
	if [ -n "$(PYTHON_GIVEN)" ] || [ -z "$$have" ]; then \
	  want="$$($(PYTHON) -c 'import platform; print(platform.python_version())')" \
	    || { echo "make: '$(PYTHON)' is not a Python interpreter (PYTHON=...)"; exit 1; }; \
	else want="$$have"; fi; \
	stamp="python $$want, requirements.txt $$lock"; \
	if [ "$$(cat $(STAMP) 2>/dev/null)" = "$$stamp" ]; then exit 0; fi; \
	case " $(SUPPORTED_PYTHONS) " in *" $${want%.*} "*) ;; *) \
	  echo "make: Python $$want is not supported: the pinned requirements have wheels for" \
	       "Python $(SUPPORTED_PYTHONS) (use e.g. make setup PYTHON=python3.11)"; exit 1;; esac; \
	if [ -e $(VENV) ]; then \
	  echo "== .venv was built from: $$(cat $(STAMP) 2>/dev/null || echo 'an unfinished setup')"; \
	  echo "== wanted: $$stamp: rebuilding .venv"; rm -rf $(VENV); fi; \
	echo "== setup: creating .venv ($$stamp)"; \
	$(PYTHON) -m venv $(VENV); \
	echo "== setup: installing the $$(grep -c '^[A-Za-z]' requirements.txt) pinned packages of" \
	     "requirements.txt into .venv (about 10 minutes the first time; pip lists each one)"; \
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off \
	  -r requirements.txt | { grep --line-buffered -E '^(Collecting|Installing|Successfully)' \
	  | sed -u 's/^/   /' || true; }; \
	echo "== setup: done"; \
	echo "$$stamp" > $(STAMP)

# The package itself, editable, on top of the lock file (its dependencies are all pinned there).
$(PACKAGE_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(PACKAGE_STAMP)

FORCE:

# The HTML book in _build/html (warnings are errors; notebooks are not re-executed).
book: setup
	$(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going --quiet

# One PDF of the whole book (toc order, print styles) for offline reading: _build/pdf/mlnotes.pdf.
pdf: book
	$(BIN)/python .dev/pdf.py _build/html _build/pdf/mlnotes.pdf

# The PDF's own check (tests/test_pdf.py, marked pdf): prints the book and reads the PDF back
# (links inside it or to the site, no blank pages, no title alone at a page foot, the index, no
# raw TeX). About two minutes, so not part of `make test` (its time budget); .ci/run calls it
# after `make test`, whose browser phase keeps the PDF module's quick tests.
test-pdf: book
	$(BIN)/python -m pytest -p no:cacheprovider -q -rfE -m pdf tests/test_pdf.py

# Every test: lint, unit + parity + property tests, every notebook through nbval, and the
# browser tests on the built book and in JupyterLab.
# The unit phase runs the test files that hold a slow test first (tests/unit_order.py), so
# none of them runs alone at the end.
# The notebooks run once through nbval, under a BLAS kernel other than the one that produced
# their stored outputs (NBVAL_KERNEL below: OpenBLAS's Prescott kernel, 2 BLAS threads), so a
# compared output that holds only one machine's rounding fails here; the same pass runs the
# mutants of every check cell (tests/nbval_mutants.py, in a fork of nbval's kernel before the
# cell; its summary counts them). A second pass under the machine's own kernel found nothing
# this one does not (a re-run that differs under the kernel that wrote the outputs differs
# under any kernel) and cost 3 minutes: `make test-notebooks` still runs it.
# The pass hands out the longest notebook first (tests/nbval_order.py; xdist's own order, most
# cells first, could leave the longest running alone at the end).
# The book builds (on one core, about 50 s from scratch) beside the unit and nbval phases
# ($(call beside,...): the step beside writes to a log printed when both are done; either failing
# fails `make test`), where it fills the unit phase's waits (a test waiting for a time limit holds
# a worker but no core). Only the browser phase needs it: a test that reads the built book without
# a browser is marked built_book and runs there too. The browser tests run alone: beside the
# notebooks on the two-core machine both were slower.
# The browser tests run on BROWSER_WORKERS workers, each with its own Chromium (loadgroup: a
# file marked with an xdist_group runs on one worker, so a fixture it builds is built once).
BROWSER_WORKERS ?= 3
# Another BLAS kernel (one every x86-64 CPU has) and 2 BLAS threads. OPENBLAS_THREAD_TIMEOUT=4:
# an idle BLAS thread sleeps at once instead of spinning for about 2^28 cycles, so two workers
# of two BLAS threads share two cores (2:02 here, against 3:55 with spinning threads and 2:43
# with one worker); the results do not depend on it.
# MLNOTES_STATIC_GRID=0: the explorers do not compute the static book's grid of settings (35 s
# of CPU): nbval compares no explorer output, and `make notebooks` computes the grid; they show
# the live widget's first picture, as in a reader's kernel.
NBVAL_KERNEL = OPENBLAS_CORETYPE=Prescott OPENBLAS_NUM_THREADS=2 OPENBLAS_THREAD_TIMEOUT=4 \
  MLNOTES_BLAS_THREADS=2 MLNOTES_STATIC_GRID=0
NBVAL = $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --nbval-lax \
  -p tests.nbval_order
# The browser phase collects only its own files (tests/phase_guard.py prints them; collecting
# every test module costs about 14 s of CPU in each of its three workers, its own files 6 s);
# the unit phase's plugin of the same name fails a run in which a test marked for the browser
# phase lives elsewhere.
UNIT_TESTS = $(BIN)/python -m pytest -n 2 -p tests.unit_order -p tests.phase_guard \
  -m "not browser and not built_book" tests
BROWSER_TESTS = $(BIN)/python -m pytest -n $(BROWSER_WORKERS) --dist loadgroup \
  -m "(browser or built_book) and not pdf" $$($(BIN)/python -m tests.phase_guard)
# $(call beside,NAME,COMMAND,FOREGROUND): COMMAND (named NAME) runs in the background, its
# output in a log printed after FOREGROUND ends; fails when either fails.
beside = set -u; log="$$(mktemp)"; \
	echo "== $(1) runs beside this step (its log follows it)"; \
	( $(2) ) > "$$log" 2>&1 & other=$$!; \
	$(3); here=$$?; \
	wait $$other; there=$$?; echo "== $(1):"; cat "$$log"; rm -f "$$log"; \
	if [ $$there -ne 0 ]; then echo "$(1) failed (exit $$there)"; fi; \
	[ $$here -eq 0 ] && [ $$there -eq 0 ]
test: setup
	$(BIN)/ruff check mlnotes tests benchmarks book
	$(BIN)/mypy
	@$(call beside,make book,$(MAKE) --no-print-directory book,$(UNIT_TESTS) \
	  && $(NBVAL_KERNEL) $(NBVAL) -p tests.nbval_mutants book)
	$(BROWSER_TESTS)

# The peers' own test suites (scikit-learn's, openTSNE's, umap-learn's upstream test files,
# adapted in tests/peers) run against mlnotes, with a pass/fail/skip table per file; the
# documented deliberate differences are in tests/peers/README.md. Not part of `make test`
# (its time budget); .ci/run calls it after `make test`.
peers: setup
	cd tests/peers && ../../$(BIN)/python -m pytest -n 2 -p no:cacheprovider \
	  -o python_files='peer_*.py' -q -rfE .

# Every distinct install cell of the published notebooks (and the README's route without a
# clone) run in a bare virtual environment (python -m venv) against this checkout, then every
# import of the notebooks that carry it (tests/test_install_cells.py), and a chapter run against
# the built wheel installed with its extras (tests/test_packaging.py). It installs from the
# package index (pip's cache makes it quick), so it is not part of `make test`; .ci/run calls it
# after `make test`.
test-install: setup
	MLNOTES_TEST_INSTALL=1 $(BIN)/python -m pytest -n 2 -p no:cacheprovider -q -rfE \
	  tests/test_install_cells.py \
	  tests/test_packaging.py::test_a_chapter_runs_against_the_installed_wheel

test-unit: setup
	$(UNIT_TESTS)

# The notebooks through nbval with the mutants under the machine's own BLAS kernel, one thread
# (what `make notebooks` writes the outputs with).
test-notebooks: setup
	$(NBVAL) -p tests.nbval_mutants book

# make test's notebook pass alone: another BLAS kernel, 2 BLAS threads, with the mutants.
test-notebooks-kernel: setup
	$(NBVAL_KERNEL) $(NBVAL) -p no:cacheprovider -p tests.nbval_mutants book

test-browser: setup
	$(BROWSER_TESTS)

serve: book
	@echo "Serving the book at http://localhost:$(PORT)/ (Ctrl-C to stop)"
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

# JupyterLab on the book's folder, its MyST rendered by jupyterlab-myst (in requirements.txt).
# It opens on book/README.md, the reading order (.dev/reading_order.py), shown rendered
# (.dev/lab/overrides.json: Markdown files open in the preview).
LAB_OPTIONS = --LabApp.default_url=/lab/tree/README.md --LabApp.app_settings_dir=$(CURDIR)/.dev/lab
lab: setup
	@echo "== make lab: starting JupyterLab on http://127.0.0.1:$(LAB_PORT)/lab, open on" \
	      "README.md (the reading order); Ctrl-C twice stops it"
	$(BIN)/jupyter lab --notebook-dir=book --ip=127.0.0.1 --port=$(LAB_PORT) $(LAB_OPTIONS) \
	  $(if $(NO_BROWSER),--no-browser) $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# mlnotes beside scikit-learn, openTSNE and umap-learn; t-SNE and UMAP at 2 000 to 20 000 points
# by phase, in CPU time on one thread (benchmarks/scaling.py). `make bench MLNOTES_BENCH_70K=1`
# adds 70 000 points (about an hour of CPU).
bench: setup
	MLNOTES_BENCH_70K=$(MLNOTES_BENCH_70K) $(BIN)/python benchmarks/run.py

# Re-execute every notebook in place (after changing mlnotes or a chapter).
notebooks: setup
	$(BIN)/python .dev/execute_notebooks.py $$(find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -not -path '*/_build/*')

lint: setup
	$(BIN)/ruff check mlnotes tests benchmarks book
	$(BIN)/mypy

# Build outputs and caches; .venv (the installed environment) stays: `make distclean` removes it.
clean:
	rm -rf _build build dist .pytest_cache .hypothesis .ruff_cache .jupyter_cache benchmarks/results*.md benchmarks/results*.json tests/artifacts
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
	@if [ -d $(VENV) ]; then echo "Kept .venv ($$(cat $(STAMP) 2>/dev/null || echo 'unfinished setup')):" \
	  "'make distclean' removes it too (the next make builds it again)."; fi

# Everything clean removes, and .venv and the packaging metadata.
distclean: clean
	rm -rf $(VENV) *.egg-info
