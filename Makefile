# scaleup-cosim: the two commands a designer needs are `make run` and `make test`.
# Everything else is a convenience. See README.md.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
SEED    ?= 1
TB      ?= cbfc_link
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps configure build run test nightly lint bench waves sanitize coverage area clean help

all: build

help:
	@echo "make run      install missing packages, build, run the default testbench ($(TB)), write a wave"
	@echo "make test     install missing packages, build, run all tests but nightly (JUnit: $(BUILD)/junit.xml)"
	@echo "make nightly  the long seeded sweeps (ctest -L nightly)"
	@echo "make lint     verilator --lint-only -Wall on all RTL"
	@echo "make bench    cosim bench cbfc"
	@echo "make sanitize ASan+UBSan build of the C++ models and their unit tests"
	@echo "make coverage RTL line/toggle coverage of the block+system tests ($(BUILD)-cov/coverage)"
	@echo "make area     yosys area of sue_tx + sue_rx, SUE against SUE Lite (AREA_ARGS=--full: RTL default sizes)"
	@echo "make clean    remove $(BUILD)"

deps:
	@bash scripts/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/tb/cosim run $(TB) --seed $(SEED) --waves

test: build
	cd $(BUILD) && ctest -LE nightly -j $(JOBS) --output-on-failure --output-junit junit.xml

nightly: build
	cd $(BUILD) && ctest -L nightly -j $(JOBS) --output-on-failure --output-junit junit-nightly.xml

lint: build
	cd $(BUILD) && ctest -L lint --output-on-failure

bench: build
	$(BUILD)/tb/cosim bench cbfc

waves: run
	@echo "open with: gtkwave -a waves/$(TB).gtkw waves/$(TB)-$(SEED).fst"

sanitize: deps
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

coverage: deps
	JOBS=$(JOBS) bash scripts/coverage.sh $(BUILD)-cov

area: deps
	bash scripts/area.sh --out $(BUILD)/area $(AREA_ARGS)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-cov
