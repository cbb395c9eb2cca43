# SPDX-License-Identifier: MIT
# mcucrypt: `make bench` (the main job) and `make test`. Each runs the idempotent set-up first.
# Everything runs in this checkout's virtual environment, made by scripts/setup.sh (`make PYTHON=...` overrides).
PYTHON := .venv/bin/python
JOBS ?= $(shell nproc)

.PHONY: setup bench test fuzz report clean lib flash

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
	rm -rf build results/*.json results/*.journal results/*.md results/*.html results/*.png

FUZZ_BUDGET ?= 300
fuzz: setup
	$(PYTHON) -m mcucrypt.fuzz --budget $(FUZZ_BUDGET)

# libmcucrypt-<target>.a for each board target: `mcucrypt export` (per primitive the fastest verified
# constant-time implementation that runs on the target's real part) into build/lib/<target>/ (headers in
# its src/), built with the exported Makefile. LIB_PRIMS narrows it (e.g. LIB_PRIMS="lea tinyjambu").
# Needs what `make setup` installs (it does not run it: the tests call `make lib`).
LIB_TARGETS ?= rv32 armv7m avr
LIB_PRIMS ?=
lib:
	@set -e; for t in $(LIB_TARGETS); do \
	  $(PYTHON) -m mcucrypt.cli export --target $$t $(foreach p,$(LIB_PRIMS),--prim $(p)) --no-fit-check --out build/lib/$$t; \
	  $(MAKE) -s -C build/lib/$$t; \
	  cp build/lib/$$t/libmcucrypt.a build/lib/libmcucrypt-$$t.a; \
	  echo "build/lib/libmcucrypt-$$t.a (headers: build/lib/$$t/src)"; \
	done

# A benchmark image for a real board, written to it with the board's usual tool (docs/silicon.md):
# make flash BOARD=<hifive1-revb|stm32f103|lm3s6965|atmega128|mega2560> [PRIM="id ..."] [IMPL="name ..."]
#            [TOOL=openocd|jlink|st-flash|avrdude] [PORT=/dev/ttyACM0] [CLOCK=hz]
# CALIB=1 builds the calibration microbenchmarks instead (docs/calibration.md, "Settling the open rows on silicon").
# Without the tool installed, it prints the exact command it would run (and fails).
flash: setup
	@test -n "$(BOARD)" || { echo "usage: make flash BOARD=<hifive1-revb|stm32f103|lm3s6965|atmega128|mega2560> [PRIM=...] [IMPL=...] [TOOL=...] [PORT=...]"; exit 2; }
	$(PYTHON) -m mcucrypt.cli firmware --board $(BOARD) $(if $(CALIB),--calib,$(foreach p,$(PRIM),--prim $(p)) $(foreach i,$(IMPL),--impl $(i))) $(if $(CLOCK),--clock $(CLOCK)) --out build/silicon/$(BOARD)$(if $(CALIB),-calib)
	$(PYTHON) -m mcucrypt.silicon.flash --board $(BOARD) --dir build/silicon/$(BOARD)$(if $(CALIB),-calib) $(if $(TOOL),--tool $(TOOL)) $(if $(PORT),--port $(PORT))
