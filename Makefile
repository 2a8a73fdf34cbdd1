# Two commands do everything on a fresh machine: `make book` and `make test`.
# Both create .venv (if absent) and install the pinned requirements once.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000

# Reproducible numbers: one BLAS thread everywhere (notebooks also pin it themselves).
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export JUPYTER_PLATFORM_DIRS := 1

.PHONY: setup book pdf test test-unit test-notebooks test-notebooks-kernel test-browser serve lab bench notebooks lint clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)

# The HTML book in _build/html (warnings are errors; notebooks are not re-executed).
book: $(STAMP)
	$(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going --quiet

# One PDF of the whole book (toc order, print styles) for offline reading: _build/pdf/mlnotes.pdf.
pdf: book
	$(BIN)/python .dev/pdf.py _build/html _build/pdf/mlnotes.pdf

# Every test: lint, unit + parity + property tests, every notebook through nbval, and the
# browser tests on the built book and in JupyterLab.
test: $(STAMP)
	$(BIN)/ruff check mlnotes tests benchmarks book
	$(BIN)/python -m pytest -n 2 -m "not browser" tests
	$(BIN)/python -m pytest -n 2 --dist loadfile --nbval-lax book
	$(MAKE) test-notebooks-kernel
	$(MAKE) book
	$(BIN)/python -m pytest -m browser tests

test-unit: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not browser" tests

test-notebooks: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile --nbval-lax book

# The notebooks again under another BLAS kernel (one every x86-64 CPU has) and 2 BLAS threads:
# a stored output that holds one machine's rounding fails here, not first on a reader's machine.
test-notebooks-kernel: $(STAMP)
	OPENBLAS_CORETYPE=Prescott OPENBLAS_NUM_THREADS=2 MLNOTES_BLAS_THREADS=2 \
	  $(BIN)/python -m pytest -n 2 --dist loadfile --nbval-lax -p no:cacheprovider book

test-browser: $(STAMP)
	$(BIN)/python -m pytest -m browser tests

serve: book
	@echo "Serving the book at http://localhost:$(PORT)/ (Ctrl-C to stop)"
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=book --ip=127.0.0.1 $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Re-execute every notebook in place (after changing mlnotes or a chapter).
notebooks: $(STAMP)
	$(BIN)/python .dev/execute_notebooks.py $$(find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -not -path '*/_build/*')

lint: $(STAMP)
	$(BIN)/ruff check mlnotes tests benchmarks book

clean:
	rm -rf _build .pytest_cache .hypothesis .ruff_cache benchmarks/results.md tests/artifacts
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
