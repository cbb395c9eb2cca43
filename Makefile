# mcucrypt: `make bench` (the main job) and `make test`. Each runs the idempotent set-up first.
PYTHON ?= python3
JOBS ?= $(shell nproc)

.PHONY: setup bench test fuzz report clean flash

setup:
	@scripts/setup.sh

# The report is written even when a job failed, and the failure still fails the target.
bench: setup
	$(PYTHON) -m mcucrypt.cli bench --json results/bench.json; status=$$?; \
	$(PYTHON) -m mcucrypt.cli report --results results/bench.json && exit $$status

test: setup
	$(PYTHON) -m pytest -q -n $(JOBS) tests

clean:
	rm -rf build results/*.json results/*.md results/*.html results/*.png

FUZZ_BUDGET ?= 300
fuzz: setup
	$(PYTHON) -m mcucrypt.fuzz --budget $(FUZZ_BUDGET)

# A benchmark image for a real board, written to it with the board's usual tool (docs/silicon.md):
# make flash BOARD=<hifive1-revb|stm32f103|lm3s6965|atmega128|mega2560> [PRIM="id ..."] [IMPL="name ..."]
#            [TOOL=openocd|jlink|st-flash|avrdude] [PORT=/dev/ttyACM0]
# Without the tool installed, it prints the exact command it would run (and fails).
flash: setup
	@test -n "$(BOARD)" || { echo "usage: make flash BOARD=<hifive1-revb|stm32f103|lm3s6965|atmega128|mega2560> [PRIM=...] [IMPL=...] [TOOL=...] [PORT=...]"; exit 2; }
	$(PYTHON) -m mcucrypt.cli firmware --board $(BOARD) $(foreach p,$(PRIM),--prim $(p)) $(foreach i,$(IMPL),--impl $(i)) --out build/silicon/$(BOARD)
	$(PYTHON) -m mcucrypt.silicon.flash --board $(BOARD) --dir build/silicon/$(BOARD) $(if $(TOOL),--tool $(TOOL)) $(if $(PORT),--port $(PORT))
