# Quick start: `make lab` (set up, open JupyterLab on notebooks/) and `make test` (set up, run every test).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
# A CPU build of torch serves every CPU test; an existing torch in the venv is kept.
TORCH_SPEC ?= torch==2.13.0
export TORCHINDUCTOR_CACHE_DIR ?= $(CURDIR)/.cache/inductor

.PHONY: setup setup-python setup-js browser lab test test-py test-fast test-js test-ui test-compat compat-versions lint format \
	contract clean

setup: setup-python setup-js

$(PY):
	python3 -m venv $(VENV)

# uv installs the venv (and each compat release's, below): it downloads and unpacks in parallel into its cache
# (.cache/uv) and hard-links the venv from it.  The same packages as pip's (pip freeze equal), torch and the
# package's extras in 28 s on a fresh cache (2026-12-05; pip took about 60-80 s of CI's 89-113 s install part).
# uv reads no pip.conf, so pip's find-links, extra indexes and constraints are passed as pip's config says them, and
# any index may give the best match, as with pip.
# --compile-bytecode writes each module's .pyc at install: this sandbox (and CI's) sets PYTHONDONTWRITEBYTECODE=1,
# so with none on disk every process compiled torch's source again as it imported it: `import torch, torch._dynamo,
# torch._inductor.compile_fx` took 9.9 s in a fresh clone's venv against 4.0 s once compiled (2026-12-05), and the
# tests start hundreds of such processes (notebook kernels, suite entries, torchrun ranks, the CLI).  Compiling
# the venv's 1.2 GB took 20 s.
UV := $(VENV)/bin/uv
UV_PIP = UV_CACHE_DIR=$(CURDIR)/.cache/uv $(UV) pip install -q --compile-bytecode --index-strategy unsafe-best-match \
	$(shell python3 -m pip config list 2>/dev/null | \
	sed -nE "s/^global\.(find-links|extra-index-url|constraint)='(.*)'$$/\1 \2/p" | \
	while read k v; do for x in $$v; do printf -- '--%s %s ' $$k $$x; done; done)

$(UV): | $(PY)
	$(PY) -m pip install -q "uv>=0.9,<1"

setup-python: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml package.json | $(UV)
	# pip writes install.json through the labextension link setup-js made; a second editable install then
	# refuses to add it twice (hatch: "A second file is being added to the wheel archive")
	rm -f kernel_side/compile_profile/labextension/install.json
	$(UV_PIP) --python $(PY) $$($(PY) -c "import torch" 2>/dev/null || echo "$(TORCH_SPEC)") -e ".[test,lint]"
	touch $@

lab: setup
	mkdir -p .cache
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

# pytest opens exported reports in Chromium too, so the browser comes first.
test: setup browser
	$(MAKE) test-py test-js test-ui

# Every CPU test.  An engine test profiles under aot_eager with --quick (tests/profile_options.py: CHEAP) unless
# Inductor, its kernels, the profiler pass or the float64 reference is its subject; a property test draws the
# Hypothesis profile's number of examples (tests/conftest.py: ci, 100; HYPOTHESIS_PROFILE=large, 2,000).
# First the tests marked `alone` (they measure the host's load, time against an independent measurement or race a
# thread: 41 tests, 59-92 s) in one process on a machine no earlier test has touched, then the rest on two workers
# (pytest-xdist, a test file to a worker: its module fixtures' profiles are made once).  One process took 722 s;
# the rest on two workers then the alone tests took 433-515 s, but the alone tests failed after them: the
# suite-resume test's Ctrl-C had gone unseen (SIGINT ignored under `nohup ... &`, fixed in the test) and its suite
# ran on beside them.  Fresh clones beside other sessions' load (2026-12-05): alone first 202 and 59 s, all passed;
# the rest 1,248 and 817 s, the notebooks' one module holding a worker for 750 and 640 s (now four modules).
# Both parts run whatever the first gives; the status is the first failure's.  PYTEST_WORKERS=1 runs the rest in
# this process.
PYTEST_WORKERS ?= 2
test-py: setup browser
	mkdir -p .cache test-artifacts
	status=0; \
	$(VENV)/bin/pytest -m "alone and not gpu" --durations=10 tests || status=$$?; \
	$(VENV)/bin/pytest $(if $(filter 1,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder) \
	  -m "not gpu and not alone" --durations=25 tests || { [ $$status != 0 ] || status=$$?; }; \
	exit $$status

# The edit loop's tier: every test that compiles nothing in this process and starts no process that does (the
# digest, the views, the store, the server, the contract, the trace parsers and the frozen runs), then jest.  A test
# that compiles is marked `compiles` and one that starts compiling processes `slow`; tests/conftest.py fails an
# unmarked test that compiled, so no compile slips into this tier.
FAST_MARKS := not compiles and not slow and not gpu and not browser
test-fast: setup
	$(VENV)/bin/pytest -q -m "$(FAST_MARKS)" -p no:cacheprovider tests
	npx jest

# -- the quality gate: format, lint and types (.ci/run runs it before the tests; .pre-commit-config.yaml too) --
# pyright checks kernel_side/compile_profile against the venv's packages ([tool.pyright] in pyproject.toml:
# basic mode, strict for the run's dataclasses, their JSON and the timing loop).
PY_SOURCES := kernel_side tests benchmarks ui-tests
TS_SOURCES := "ext/src/**/*.{ts,tsx}" "ext/test/**/*.ts" "ext/style/*.css" "ui-tests/tests/*.ts" "ui-tests/*.js" jest.config.js eslint.config.mjs \
	ext/scripts/*.mjs
# The contract between Python and TypeScript: the JSON Schemas the run's dataclasses and the digest's dataclasses
# (digest/contract.py ROOTS) generate (kernel_side/compile_profile/schema/) and the TypeScript generated from those
# (ext/src/generated/), each shape declared once.
# `make contract` rewrites them; lint's --check runs fail, naming the stale file, when a class changed and they
# were not regenerated.  (python -c: `python -m` would import the module twice.)
CONTRACT_SCHEMAS := PYTHONPATH=kernel_side $(PY) -c 'import sys; from compile_profile.digest.contract import main; sys.exit(main())'
CONTRACT_TYPES := node ext/scripts/contract-types.mjs

lint: $(VENV)/.installed node_modules/.installed
	$(VENV)/bin/ruff format --check $(PY_SOURCES)
	$(VENV)/bin/ruff check $(PY_SOURCES)
	npx pyright
	npx prettier --check $(TS_SOURCES)
	npx eslint ext ui-tests jest.config.js eslint.config.mjs
	npx tsc --noEmit -p .
	npx tsc -p ui-tests
	$(CONTRACT_SCHEMAS) --check
	$(CONTRACT_TYPES) --check

# what lint checks for format, rewritten in place
format: $(VENV)/.installed node_modules/.installed
	$(VENV)/bin/ruff format $(PY_SOURCES)
	$(VENV)/bin/ruff check --fix $(PY_SOURCES)
	npx prettier --write $(TS_SOURCES)

contract: $(VENV)/.installed node_modules/.installed
	$(CONTRACT_SCHEMAS)
	$(CONTRACT_TYPES)

# -- JupyterLab extension (ext/) --------------------------------------------------
# setup-js builds the labextension and links it into the venv, so pip's build hook is skipped here.
export SKIP_JUPYTER_BUILDER := 1
NPM ?= npm
LABEXT := kernel_side/compile_profile/labextension
CHROMIUM ?= /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

setup-js: $(VENV)/.labextension-linked

node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	touch $@

$(LABEXT)/package.json: node_modules/.installed $(VENV)/.installed tsconfig.json $(wildcard ext/src/*) $(wildcard ext/src/generated/*) $(wildcard ext/style/*)
	PATH="$(abspath $(VENV))/bin:$$PATH" $(NPM) run build
	touch $@

# Re-linked after every pip install, which may put a copy of an older build in its place.
$(VENV)/.labextension-linked: $(LABEXT)/package.json $(VENV)/.installed
	$(VENV)/bin/jupyter-builder develop --overwrite .
	touch $@

browser: $(CHROMIUM)
$(CHROMIUM):
	$(SUDO) apt-get update -q
	$(SUDO) apt-get install -y -q chromium

test-js: node_modules/.installed
	npx jest

# Galata starts JupyterLab itself (ui-tests/playwright.config.js) on a store of its own.
test-ui: setup browser
	mkdir -p test-artifacts
	cd ui-tests && PATH="$(abspath $(VENV))/bin:$$PATH" npx playwright test

# -- older torch (docs/compatibility.md) ------------------------------------------------------
# What differs between torch releases, on each release of COMPAT_TORCH, each in a venv of its own with the
# package's runtime dependencies: the engine and the cell rewrite (test_engine_cell, test_engine_profile), the
# magic (test_magic), the trace capture (test_trace_events, test_guards), the cache keys (test_compile_cache) and
# the distributed lock-step (test_distributed).  The cell-reliability and fidelity suites (test_reliability_cells,
# test_fidelity: 62 tests of whole cells) run on CI's torch only; by hand on an older release with
# `make test-compat COMPAT_TESTS="tests/test_reliability_cells.py tests/test_fidelity.py"`.  The digest, the views,
# the store and the float64 reference's rules read no release's behaviour and run once, on CI's torch.
# PyPI has no CPU build of these releases for x86_64 Linux (its x86_64 wheels are CUDA builds, 731 MB for 2.6.0
# and 873 MB for 2.10.0, which pull 5-6 GB of NVIDIA libraries; only aarch64 and macOS wheels are CPU builds), and
# PyPI is the one registry CI reaches; they run on the CPU.  .ci/run calls it once per release and prints each
# one's time; here each release's install and tests are timed apart.
COMPAT_TORCH ?= 2.6.0 2.10.0
COMPAT_TESTS ?= tests/test_engine_cell.py tests/test_engine_profile.py tests/test_magic.py tests/test_trace_events.py \
	tests/test_guards.py tests/test_compile_cache.py tests/test_distributed.py
# setuptools: these releases' Inductor imports it to build C++ (torch requires it on Python 3.12 only, where a venv
# no longer brings it; pip's venv of 3.11 did, uv's install has to ask for it).
COMPAT_DEPS := numpy scipy ipython pygments plotly ipywidgets nbformat nbclient ipykernel jupyter_server tqdm \
	"pytest>=8" pytest-timeout jsonschema setuptools

# Each release's CUDA build takes 5.7 GB (2.6.0) to 7.3 GB (2.10.0); a CI run with both venvs at once ran out of
# disk (stop 18), so COMPAT_KEEP=0 (.ci/run) removes each venv and uv's cache after its tests.
# uv installs them (above): torch 2.6.0 with the dependencies in 53 s and 2.10.0 in 91 s, against pip's 126 and
# 168 s (fresh caches, 2026-12-05; installing torch --no-deps with only the NVIDIA libraries it loads on import
# saved pip no time: unpacking is the cost).
COMPAT_KEEP ?= 1
COMPAT_FREE_GB := 10

compat-versions:
	@echo $(COMPAT_TORCH)

test-compat: | $(UV)
	set -e; for v in $(COMPAT_TORCH); do \
	  venv=.venv-torch-$$v; start=$$SECONDS; \
	  if ! $$venv/bin/python -c "import torch" 2>/dev/null; then \
	    free=$$(df -Pk . | awk 'NR==2 {print int($$4 / 1048576)}'); \
	    if [ "$$free" -lt $(COMPAT_FREE_GB) ]; then \
	      echo "test-compat: torch $$v's CUDA build needs about $(COMPAT_FREE_GB) GB free to install; $$free GB are free here. Free disk space (make clean removes every venv) and run it again."; \
	      exit 1; \
	    fi; \
	    [ -x $$venv/bin/python ] || python3 -m venv --without-pip $$venv; \
	  fi; \
	  $(UV_PIP) --python $$venv/bin/python "torch==$$v" $(COMPAT_DEPS); \
	  echo "== torch $$v: installed in $$((SECONDS - start)) s"; start=$$SECONDS; \
	  PYTHONPATH=kernel_side TORCHINDUCTOR_CACHE_DIR=$(CURDIR)/.cache/inductor-$$v \
	    $$venv/bin/python -m pytest -q -m "not gpu" -p no:cacheprovider -p no:hypothesispytest $(COMPAT_TESTS); \
	  echo "== torch $$v: tests in $$((SECONDS - start)) s"; \
	  [ "$(COMPAT_KEEP)" = 1 ] || rm -rf $$venv .cache/uv; \
	done

clean:
	rm -rf $(VENV) .venv-torch-* node_modules kernel_side/compile_profile/labextension .cache test-artifacts
