# mcucrypt: `make bench` (the main job) and `make test`. Each runs the idempotent set-up first.
# Everything runs in this checkout's virtual environment, made by scripts/setup.sh (`make PYTHON=...` overrides).
PYTHON := .venv/bin/python
JOBS ?= $(shell nproc)

.PHONY: setup bench test fuzz report clean

setup:
	@scripts/setup.sh

# The report is written even when a job failed, and the failure still fails the target.
bench: setup
	$(PYTHON) -m mcucrypt.cli bench --json results/bench.json; status=$$?; \
	$(PYTHON) -m mcucrypt.cli report --results results/bench.json && exit $$status

report: setup
	$(PYTHON) -m mcucrypt.cli report --results results/bench.json

test: setup
	$(PYTHON) -m pytest -q -n $(JOBS) tests

clean:
	rm -rf build results/*.json results/*.md results/*.html results/*.png

FUZZ_BUDGET ?= 300
fuzz: setup
	$(PYTHON) -m mcucrypt.fuzz --budget $(FUZZ_BUDGET)
