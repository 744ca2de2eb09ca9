# Quick start: `make lab` (set up, open JupyterLab on notebooks/) and `make test` (set up, run every test).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
# A CPU build of torch serves every CPU test; an existing torch in the venv is kept.
TORCH_SPEC ?= torch==2.13.0
export TORCHINDUCTOR_CACHE_DIR ?= $(CURDIR)/.cache/inductor
export COMPILE_PROFILE_DB ?= $(CURDIR)/.cache/runs.sqlite

.PHONY: setup setup-python setup-js browser lab test test-python test-js test-ui clean

setup: setup-python

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

setup-python: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml package.json | $(PY)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q "$(TORCH_SPEC)"
	$(PY) -m pip install -q -e ".[test]"
	touch $@

lab: setup
	mkdir -p .cache
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

test: setup
	mkdir -p .cache test-artifacts
	$(VENV)/bin/pytest -m "not gpu" tests

clean:
	rm -rf $(VENV) node_modules kernel_side/compile_profile/labextension .cache test-artifacts
