# HealthPair — every entry point a newcomer or CI needs.
SWIFT ?= swift
BIN := .build/debug
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build run test demo clean

all: build

build:
	$(SWIFT) build

## make run: build, launch a fresh phone + watch pair per scenario, run Scenarios/, print the report.
run: build
	$(BIN)/healthpair run Scenarios --jobs $(JOBS)

## make demo: the engine demonstration (no daemons).
demo: build
	$(BIN)/healthpair demo

## make test: every test (unit, real-process integration, the scenario suite), then the suite through the CLI.
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(BIN)/healthpair run Scenarios --jobs $(JOBS) --junit $(BIN)/scenarios-junit.xml

clean:
	rm -rf .build
