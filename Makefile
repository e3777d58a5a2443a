# HealthPair — every entry point a newcomer or CI needs.
SWIFT ?= swift
BIN := .build/debug
# bash, for pipefail: a stage piped through tee still fails the target when it fails.
SHELL := /bin/bash
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
## Release builds (bench, simulate, load, install) link the Swift runtime and Foundation statically: a daemon then
## maps one binary instead of fifteen libraries, so each forked daemon faults in, copies and unmaps fewer pages and
## resolves no symbols lazily (less CPU per scenario in `make bench` row 11a). Every release
## target uses the same flags, so .build/release is never rebuilt from scratch between them.
RELEASE := build -c release --static-swift-stdlib

.PHONY: all build run test test-notice line-length test-html downstream ci-kit demo bench fuzz chaos simulate load \
  install clean

all: build

build:
	$(SWIFT) build

## make run: build, launch a fresh phone + watch pair per scenario, run Scenarios/, print the report.
run: build
	$(BIN)/healthpair run Scenarios --jobs $(JOBS)

## make demo: the engine demonstration (no daemons).
demo: build
	$(BIN)/healthpair demo

## make test: lines within 120 columns (make line-length), every test (unit, real-process integration, the scenario
## suite), then the suite through the CLI, then a smoke run of the benchmark binary (tiny sizes, no timing judged),
## then the HTML report in Chromium, then the downstream package check, then the CI kit (make ci-kit). It ends with
## one closing line, "N passed, M failed[, K skipped]": Swift Testing and XCTest tests, scenarios, the browser check,
## the downstream check and the CI-kit checks together (any failure stops it earlier, with the failing stage's own
## report last). It says up front what it will install (Chromium, debootstrap) and what it will skip.
test: test-notice line-length
	$(SWIFT) build --build-tests
	set -o pipefail; $(SWIFT) test 2>&1 | tee $(BIN)/test-output.txt
	set -o pipefail; $(BIN)/healthpair run Scenarios --jobs $(JOBS) --junit $(BIN)/scenarios-junit.xml \
	  | tee $(BIN)/scenarios-output.txt
	$(BIN)/healthpair-bench --smoke --json $(BIN)/bench-smoke.json > /dev/null
	@$(MAKE) --no-print-directory test-html
	@$(MAKE) --no-print-directory downstream
	@set -o pipefail; $(MAKE) --no-print-directory ci-kit 2>&1 | tee $(BIN)/ci-kit-output.txt
	@swift=$$(grep -Eo 'Test run with [0-9]+ tests?' $(BIN)/test-output.txt | tail -1 | grep -Eo '[0-9]+'); \
	 xctest=$$(grep -Eo 'Executed [0-9]+ tests?' $(BIN)/test-output.txt | tail -1 | grep -Eo '[0-9]+'); \
	 scenarios=$$(grep -Eo '[0-9]+ passed, [0-9]+ failed' $(BIN)/scenarios-output.txt | tail -1 | grep -Eo '^[0-9]+'); \
	 browser=1; [ -n "$(SKIP_BROWSER_CHECK)" ] && browser=0; \
	 container=1; grep -q '^check-container: SKIPPED' $(BIN)/ci-kit-output.txt && container=0; \
	 skipped=$$(( 2 - browser - container )); \
	 echo; echo "make test: $${swift:-0} Swift Testing tests, $${xctest:-0} XCTest tests, $${scenarios:-0} scenarios," \
	   "$$browser browser check, 1 downstream check, $$(( 2 + container )) CI-kit checks"; \
	 echo "$$(( $${swift:-0} + $${xctest:-0} + $${scenarios:-0} + browser + 3 + container )) passed, 0 failed$$( \
	   [ $$skipped = 0 ] || echo ", $$skipped skipped")"

## make test-notice: what `make test` is about to install or skip on this machine, said before it starts.
test-notice:
	@if [ -n "$(SKIP_BROWSER_CHECK)" ]; then \
	  echo "make test: SKIP_BROWSER_CHECK is set: the HTML report's browser check will be skipped (CI runs it)"; \
	elif ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
	  echo "make test: Chromium is not installed; the browser check will install it with" \
	    "'$(strip $(SUDO) apt-get install chromium)'. To skip that check instead: make test SKIP_BROWSER_CHECK=1"; \
	fi
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "make test: not root: the container-recipe check (Examples/CI/Dockerfile on a Debian root) will be skipped"; \
	elif ! command -v debootstrap >/dev/null 2>&1 && [ ! -d .build/ci-container/root ]; then \
	  echo "make test: the container-recipe check will install debootstrap with apt-get and make a Debian 12 root" \
	    "in .build/ci-container (once, a few minutes)"; \
	fi

## make line-length: no line over the committed 120 columns (.swift-format) that the toolchain's formatter would
## break. Only files with a line over 120 bytes go through `swift format lint` (about 2 s of CPU); see
## scripts/check-line-length. To fix every finding at once: swift format -i -p -r Sources Tests
line-length:
	@SWIFT="$(SWIFT)" scripts/check-line-length

## make test-html: `healthpair run --html` in a real headless Chromium — the page renders with no console error,
## holds every scenario and highlights a deliberately failing step; screenshots and the page are left in
## $(BIN)/html-report/. Chromium is installed with apt-get when missing (as root, else through sudo, after saying
## so); without apt-get this fails rather than skip. SKIP_BROWSER_CHECK=1 skips the check instead (for a laptop that
## should not get Chromium; CI never sets it).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HTML_ARTIFACTS := $(CURDIR)/$(BIN)/html-report
test-html:
ifneq ($(SKIP_BROWSER_CHECK),)
	@echo "make test-html: SKIPPED (SKIP_BROWSER_CHECK is set): the HTML report was not checked in a browser"
else
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "make test-html: Chromium is missing and there is no apt-get to install it" >&2; exit 1; \
	  fi; \
	  echo "make test-html: Chromium is missing; installing it: $(strip $(SUDO) apt-get install chromium)" \
	    "(to skip the browser check instead: SKIP_BROWSER_CHECK=1)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	    >/dev/null || { echo "make test-html: apt-get could not install chromium" >&2; exit 1; }; \
	fi
	$(SWIFT) build --build-tests
	@rm -rf $(HTML_ARTIFACTS)
	HEALTHPAIR_BROWSER_TEST=1 HEALTHPAIR_HTML_ARTIFACTS=$(HTML_ARTIFACTS) \
	  $(SWIFT) test --skip-build --filter HTMLReportBrowserTests
	@test -s $(HTML_ARTIFACTS)/failing-scenario.png || { echo "make test-html: the browser test did not run" >&2; exit 1; }
endif

## make downstream: a package outside HealthPair (Examples/Downstream/StepsKit: published-style code with an
## unedited `import HealthKit`) depending on this checkout as docs/testing-your-app.md says — `swift build` and
## `swift test` in a fresh copy. Its build is kept in .build/downstream, so reruns compile only what changed.
downstream:
	HEALTHPAIR_DOWNSTREAM_BUILD=$(CURDIR)/.build/downstream Examples/Downstream/check.sh

## make ci-kit: the CI kit of docs/ci.md, executed. The page shows Examples/CI's files as they are
## (Examples/CI/check-docs.py); every `run:` step of Examples/CI/healthkit.yml runs, job by job and for every shard,
## in a fresh copy of Examples/Downstream/StepsKit, and the merged JUnit must hold each scenario once
## (Examples/CI/check-workflow.sh; the build is the one make downstream keeps); as root, Examples/CI/Dockerfile's
## steps run on a clean Debian 12 root with this machine's toolchain and the image runs the package's scenarios
## (Examples/CI/check-container.py; the root and the build cache stay in .build/ci-container). Not root: that last
## check says it is skipped.
ci-kit:
	python3 Examples/CI/check-docs.py
	HEALTHPAIR_DOWNSTREAM_BUILD=$(CURDIR)/.build/downstream Examples/CI/check-workflow.sh
	python3 Examples/CI/check-container.py

## make bench: release build, every benchmark at full size; prints the table and writes bench-results.json.
bench:
	$(SWIFT) $(RELEASE)
	.build/release/healthpair-bench --scenarios Scenarios --json bench-results.json --markdown \
	  --charts docs --history docs/bench-history.json

## make fuzz: coverage-guided libFuzzer on each target in FUZZ_TARGETS for FUZZ_SECONDS each.
## Corpora live in .build/fuzz-corpus/<target>; a crash leaves its input in .build/fuzz-crashes/ and fails the run.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= frames messages journal snapshot scenario requests export
fuzz:
	$(SWIFT) build -c release --product healthpair-fuzz --scratch-path .build/fuzz \
	  -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld -Xswiftc -DLIBFUZZER
	@mkdir -p .build/fuzz-crashes
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p .build/fuzz-corpus/$$t; \
	  .build/fuzz/release/healthpair-fuzz $$t --write-corpus .build/fuzz-corpus/$$t.seeds; \
	  echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
	  if ! SWIFT_BACKTRACE=enable=no .build/fuzz/release/healthpair-fuzz $$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
	      -print_final_stats=1 -artifact_prefix=.build/fuzz-crashes/$$t- \
	      .build/fuzz-corpus/$$t .build/fuzz-corpus/$$t.seeds > .build/fuzz-$$t.log 2>&1; then \
	    tail -40 .build/fuzz-$$t.log; exit 1; fi; \
	  grep -E '^stat::(number_of_executed_units|peak_rss_mb|slowest_unit_time_sec)|DONE' .build/fuzz-$$t.log; \
	done

## make chaos: the long fault campaign — CHAOS_SEEDS seeds of CHAOS_STEPS steps each, every invariant checked.
CHAOS_SEEDS ?= 100
CHAOS_STEPS ?= 1000
CHAOS_JOBS ?= $(JOBS)
chaos: build
	$(BIN)/healthpair chaos --seeds $(CHAOS_SEEDS) --steps $(CHAOS_STEPS) --jobs $(CHAOS_JOBS)

## make simulate: the deterministic pair simulator, release build — SIM_SEEDS seeds of SIM_STEPS steps each.
SIM_SEEDS ?= 10000
SIM_STEPS ?= 1000
simulate:
	$(SWIFT) $(RELEASE) --product healthpair
	.build/release/healthpair simulate --seeds $(SIM_SEEDS) --steps $(SIM_STEPS) --jobs $(JOBS)

## make load: LOAD_CLIENTS concurrent clients on both devices for LOAD_SECONDS while sync runs; nothing may be lost.
LOAD_CLIENTS ?= 32
LOAD_SECONDS ?= 30
load:
	$(SWIFT) $(RELEASE)
	.build/release/healthpair load --clients $(LOAD_CLIENTS) --seconds $(LOAD_SECONDS)

## make install PREFIX=/usr/local: release build; installs healthpair and healthpaird into $(PREFIX)/bin
## (healthpair finds healthpaird beside itself).
PREFIX ?= /usr/local
install:
	$(SWIFT) $(RELEASE) --product healthpair
	$(SWIFT) $(RELEASE) --product healthpaird
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 .build/release/healthpair .build/release/healthpaird "$(DESTDIR)$(PREFIX)/bin/"

clean:
	rm -rf .build
