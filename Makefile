# Two commands for a newcomer: `make demo` runs the product, `make test` runs the tests.
# Each does its own set-up on a fresh machine: the system packages it needs
# (tools/system-packages: installs them as root, or names the command to run) and the venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip --quiet --disable-pip-version-check
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
TEST_ENV := SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy GPIOZERO_PIN_FACTORY=mock
# `make test` runs the tests on pytest-xdist workers: most of the suite's time is spent waiting on
# real processes (brokers, hubs, tables, Chromium), so more workers than cores pay. A module whose
# tests share a set-up runs on one worker (tests/support/xdist_groups.py). TEST_WORKERS=0: one process.
TEST_WORKERS ?= 4

.PHONY: demo test test-under-load lint typecheck bench soak hardware image system-demo system-test system-load system-image clean

system-demo:
	@tools/system-packages demo

system-test:
	@tools/system-packages test

system-load:
	@tools/system-packages load

system-image:
	@tools/system-packages image

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(PIP) install --upgrade pip

# the product alone (what `make demo` needs)
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

# the product and the test tools
$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[test]'
	touch $(RUN_STAMP) $@

demo: system-demo $(RUN_STAMP)
	$(BIN)/bghub demo

test: system-test $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(TEST_ENV) $(BIN)/python -m pytest -m "not soak and not hardware" -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)

# `make test` three times in a row on a fresh clone while stress-ng keeps 2 CPUs busy (not part of
# `make test`; hours on a busy machine): tools/test-under-load, RUNS=, STRESS_CPUS=, PYTEST_ARGS=
test-under-load: system-load
	tools/test-under-load

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(TEST_STAMP)
	$(BIN)/mypy

bench: system-test $(TEST_STAMP)
	$(TEST_ENV) $(BIN)/python -m bench

# on a table's Raspberry Pi: its real buttons and dice tower (tests/hardware)
hardware: $(TEST_STAMP)
	SDL_VIDEODRIVER=dummy $(BIN)/python -m pytest -m hardware tests/hardware $(PYTEST_ARGS)

# the table's SD-card image (as root; docs/image.md): prints its path, size and build time
image: system-image $(TEST_STAMP)
	image/build

soak: system-test system-image $(TEST_STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -m soak $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache
