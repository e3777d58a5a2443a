# HealthPair — every entry point a newcomer or CI needs.
SWIFT ?= swift
BIN := .build/debug
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build run test demo bench clean

all: build

build:
	$(SWIFT) build

## make run: build, launch a fresh phone + watch pair per scenario, run Scenarios/, print the report.
run: build
	$(BIN)/healthpair run Scenarios --jobs $(JOBS)

## make demo: the engine demonstration (no daemons).
demo: build
	$(BIN)/healthpair demo

## make test: every test (unit, real-process integration, the scenario suite), then the suite through the CLI,
## then a smoke run of the benchmark binary (tiny sizes, no timing judged).
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(BIN)/healthpair run Scenarios --jobs $(JOBS) --junit $(BIN)/scenarios-junit.xml
	$(BIN)/healthpair-bench --smoke --json $(BIN)/bench-smoke.json > /dev/null

## make bench: release build, every benchmark at full size; prints the table and writes bench-results.json.
bench:
	$(SWIFT) build -c release
	.build/release/healthpair-bench --scenarios Scenarios --json bench-results.json --markdown

clean:
	rm -rf .build
