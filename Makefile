# HealthPair — every entry point a newcomer or CI needs.
SWIFT ?= swift
BIN := .build/debug

.PHONY: all build run test clean

all: build

build:
	$(SWIFT) build

## make run: build, then play the demonstration.
run: build
	$(BIN)/healthpair demo

## make test: every test.
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test

clean:
	rm -rf .build
