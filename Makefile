# toolgate: `make run` starts the console, `make test` checks everything.
# Building and running need only Go (htmx is committed in static/); the
# checks install what a fresh machine lacks (npm packages for the browser
# driver, Debian chromium) or stop with a one-line instruction.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
PKGS      = ./...
GO_DIRS   = cmd internal web views static migrations e2e
CHROMIUM  = /usr/bin/chromium
HTMX_SRC  = node_modules/htmx.org/dist/htmx.min.js
NPM_STAMP = node_modules/.package-lock.json
# Flags for `toolgate serve` in `make run`, e.g.
#   make run ARGS="--addr 127.0.0.1:9000 --data-dir /tmp/toolgate"
ARGS     ?=
# Test results (go test -json, one file per run) that `make test-summary` counts.
RESULTS   = .test-results
GOTESTSUM = $(GO) tool gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg
# The real-world corpus (../shared beside the clone, or TOOLGATE_CORPUS=DIR)
# is a test tier: it runs where it is present and skips where it is not;
# `make test` then says so in one line. CI requires it: .ci/run sets
# TOOLGATE_REQUIRE_CORPUS=1, which turns a missing corpus into a failure
# (see internal/testing/corpus).
# Tests that need a real OCI registry (internal/testing/ocitest starts Debian's
# docker-registry on loopback) fail rather than skip when it is missing. The
# package is not installed (it would enable a registry service listening on
# every interface): `make registry` extracts its binary into .cache/ and the
# tests start that, unless Debian's is installed already.
export TOOLGATE_REQUIRE_REGISTRY = 1
REGISTRY_CACHE = $(CURDIR)/.cache/docker-registry
REGISTRY_BIN  ?= $(if $(wildcard /usr/bin/docker-registry),/usr/bin/docker-registry,$(REGISTRY_CACHE)/usr/bin/docker-registry)
export TOOLGATE_REGISTRY_BIN = $(REGISTRY_BIN)
# hoststate saves what the machine runs as services before `make test`
# installs anything and checks afterwards that nothing was added.
HOSTSTATE = $(GO) run ./internal/testing/hoststate/cmd/hoststate
# Tests on PostgreSQL (internal/testing/pgtest starts a throwaway server) fail rather
# than skip when the server binaries are missing (`make postgres`).
export TOOLGATE_REQUIRE_POSTGRES = 1

# Fuzz targets run briefly (FUZZ_TIME executions) by `make test`: space-separated
# package:FuzzName pairs. Add yours with `FUZZ_TARGETS += ./pkg:FuzzX`.
FUZZ_TARGETS = ./web:FuzzSafeNext \
               ./internal/openapi:FuzzLoad \
               ./internal/openapi:FuzzToolName \
               ./internal/policy:FuzzWorstCase \
               ./internal/bundle:FuzzTransformMatchesJCS
# Counted executions, not seconds: a time budget can end while a worker is
# mid-input, which go test reports as a spurious "context deadline exceeded".
FUZZ_TIME   ?= 20000x

.PHONY: help
help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

# --- set-up --------------------------------------------------------------

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# static/htmx.min.js is committed so a Go-only clone builds; after changing
# the pinned version in package.json, `make htmx` copies it in (commit it;
# TestHTMXMatchesLock in ./static fails while the two differ).
.PHONY: htmx
htmx: $(NPM_STAMP) ## copy the pinned htmx from node_modules into static/
	cp $(HTMX_SRC) static/htmx.min.js

# apt_install installs Debian packages for the checks as root, or stops with
# the one-line command to run by hand. $(1): what needs them, $(2): the
# packages, $(3): the services those packages enable, which it disables
# again: the tests start their own servers on loopback, and `make test`
# leaves no service enabled or listening. While it installs, a
# policy-rc.d forbids starting any service (Debian's mechanism: invoke-rc.d
# and deb-systemd-invoke ask it), unless the machine has one of its own.
# PostgreSQL's packages are told not to create their "main" cluster (a
# drop-in read by pg_createcluster, removed again afterwards). Recommended
# packages are not installed.
define apt_install
if [ "$$(id -u)" = 0 ]; then \
  own_rc=; if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; own_rc=1; fi; \
  own_pg=; if [ ! -e /etc/postgresql-common/createcluster.d/toolgate.conf ]; then \
    mkdir -p /etc/postgresql-common/createcluster.d; echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/toolgate.conf; own_pg=1; fi; \
  status=0; { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(2); } || status=$$?; \
  if [ -n "$$own_rc" ]; then rm -f /usr/sbin/policy-rc.d; fi; \
  if [ -n "$$own_pg" ]; then rm -f /etc/postgresql-common/createcluster.d/toolgate.conf; rmdir /etc/postgresql-common/createcluster.d 2>/dev/null || true; fi; \
  for unit in $(3); do \
    if command -v systemctl >/dev/null; then systemctl disable --now "$$unit" >/dev/null 2>&1 || systemctl disable "$$unit" >/dev/null 2>&1 || true; fi; \
    if command -v service >/dev/null; then service "$$unit" stop >/dev/null 2>&1 || true; fi; \
  done; \
  exit $$status; \
else \
  echo "$(1) need $(2): run 'sudo apt-get update && sudo apt-get install -y --no-install-recommends $(2)'$(if $(3), then 'sudo systemctl disable --now $(3)')"; exit 1; \
fi
endef

.PHONY: chromium
chromium: ## install Debian chromium for the browser tests if missing
	@if [ ! -x $(CHROMIUM) ]; then $(call apt_install,browser tests,chromium fonts-liberation,); fi

# The registry binary comes out of Debian's docker-registry package without
# installing it: `apt-get download` (any user, once the package lists exist;
# root refreshes them) and `dpkg-deb -x` into .cache/. It needs only libc.
.PHONY: registry
registry: ## extract Debian's docker-registry binary (a real OCI registry) into .cache/ for the tests, unless installed
	@if [ ! -x "$(REGISTRY_BIN)" ]; then \
	  tmp=$$(mktemp -d); chmod 755 "$$tmp"; trap 'rm -rf "$$tmp"' EXIT; \
	  if ! (cd "$$tmp" && apt-get download docker-registry >/dev/null 2>&1); then \
	    if [ "$$(id -u)" = 0 ]; then apt-get update >/dev/null && (cd "$$tmp" && apt-get download docker-registry); \
	    else echo "registry tests need Debian's docker-registry package: run 'sudo apt-get update' (then make again), or install it: 'sudo apt-get install -y --no-install-recommends docker-registry && sudo systemctl disable --now docker-registry'"; exit 1; fi; \
	  fi; \
	  rm -rf "$(REGISTRY_CACHE)"; mkdir -p "$(REGISTRY_CACHE)"; dpkg-deb -x "$$tmp"/docker-registry_*.deb "$(REGISTRY_CACHE)"; \
	  echo "registry: extracted $(REGISTRY_BIN) from Debian's docker-registry package (not installed, so no service)"; \
	fi

.PHONY: postgres
postgres: ## install Debian postgresql (server binaries; no cluster, its service is disabled) for the store tests if missing
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then \
	  $(call apt_install,the store tests,postgresql,postgresql); fi

.PHONY: setup
setup: $(NPM_STAMP) chromium registry postgres ## install what the checks need (npm packages, chromium, docker-registry's binary, postgresql)

# --- build and run -------------------------------------------------------

.PHONY: generate
generate: ## regenerate templ views (views/*_templ.go)
	$(GO) tool templ generate -path views

.PHONY: build
build: ## build bin/toolgate
	$(GO) build -o bin/toolgate ./cmd/toolgate

# The runtime-only build: `toolgate runtime`, `bundle verify` and
# `agent-token` without the console (half the binary, a third less memory).
.PHONY: build-runtime
build-runtime: ## build bin/toolgate-runtime (the runtime only: -tags runtimeonly)
	$(GO) build -tags runtimeonly -o bin/toolgate-runtime ./cmd/toolgate

.PHONY: run
run: ## build and run the console (default 127.0.0.1:8080, ./data); ARGS="--addr … --data-dir …" to change
	@echo "make run: building bin/toolgate (the first build compiles every dependency: a minute or more)…"
	@$(GO) build -o bin/toolgate ./cmd/toolgate
	@echo "make run: starting the console; the first start prints a one-time setup link to create the first admin"
	bin/toolgate serve $(ARGS)

# --- checks --------------------------------------------------------------

.PHONY: test
# It saves the machine's services (enabled units, SysV start links,
# listening sockets) before `make setup` and fails if any was added by the
# end (internal/testing/hoststate; the state is a .txt, which test-summary
# does not count).
test: ## everything CI runs; ends with the line "N passed, N failed"
	@rm -rf $(RESULTS); mkdir -p $(RESULTS)
	@$(HOSTSTATE) save $(RESULTS)/host-before.txt
	@status=0; $(MAKE) --no-print-directory setup fmt-check vet staticcheck templ-check unit fuzz e2e || status=$$?; \
	$(HOSTSTATE) check $(RESULTS)/host-before.txt || status=1; \
	$(MAKE) -s --no-print-directory test-summary; exit $$status

.PHONY: fmt-check
fmt-check:
	@out=$$(gofmt -l $(GO_DIRS)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

.PHONY: vet
vet:
	$(GO) vet $(PKGS)

.PHONY: staticcheck
staticcheck:
	$(GO) tool staticcheck $(PKGS)

.PHONY: templ-check
templ-check: ## fail when generated views are stale
	$(GO) tool templ generate -path views
	@if [ -n "$$(git status --porcelain -- views)" ]; then \
	  echo "views/*_templ.go are stale: run 'make generate' and commit"; git status --short -- views; exit 1; fi

.PHONY: unit
unit: postgres ## unit tests with the race detector (browser tests run in `e2e`)
	@mkdir -p $(RESULTS)
	$(GOTESTSUM) --jsonfile $(RESULTS)/unit.json -- -race -short $$($(GO) list $(PKGS) | grep -v /e2e$$)
	@# The store's whole suite again on PostgreSQL (its MustOpen follows
	@# TOOLGATE_TEST_ENGINE; internal/testing/pgtest starts a throwaway server).
	TOOLGATE_TEST_ENGINE=postgres $(GOTESTSUM) --jsonfile $(RESULTS)/unit-postgres.json -- -race -short ./internal/store
	@# The real-world fixture corpus (8 MB of OpenAPI) skips under -race -short;
	@# it runs here without the race detector (the parser and classifier are
	@# single-goroutine; the store's corpus import is one transaction).
	$(GOTESTSUM) --jsonfile $(RESULTS)/corpus.json -- ./internal/openapi ./internal/risk
	$(GOTESTSUM) --jsonfile $(RESULTS)/corpus-store.json -- -run 'Fixtures' ./internal/store
	TOOLGATE_TEST_ENGINE=postgres $(GOTESTSUM) --jsonfile $(RESULTS)/corpus-store-postgres.json -- -run 'Fixtures' ./internal/store

# The risk engine against ../shared/labels/dev-risk-labels.tsv (confusion
# matrix, exact agreement, risky rows under-classified — headline on
# high-confidence rows — per document, every disagreement) and against the
# reviewed goldens of both fixture corpora, plus each document's class
# shares. Pass RISK_REPORT_ARGS='-labels FILE' to score another labels file.
.PHONY: risk-report
risk-report: ## risk engine vs the dev labels and the goldens (confusion matrix, under-classified, per document)
	@$(GO) test -count=1 -v -run '^(TestDevLabels|TestGoldenAgreement|TestClassShare)$$' ./internal/risk $(RISK_REPORT_ARGS) 2>&1 \
	  | grep -Ev '^ *(=== (RUN|PAUSE|CONT)|--- PASS: TestClassShare/)'

.PHONY: fuzz
fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $$t for $(FUZZ_TIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZ_TIME) "$${t%%:*}"; \
	done

.PHONY: e2e
e2e: $(NPM_STAMP) chromium ## browser tests (screenshots in e2e/artifacts/)
	@mkdir -p $(RESULTS)
	TOOLGATE_E2E=1 $(GOTESTSUM) --format testname --jsonfile $(RESULTS)/e2e.json -- -count=1 ./e2e/

# Counts every test (subtests included) of the last unit/corpus/e2e runs from
# their go test -json files; a package that did not build counts as failed.
.PHONY: test-summary
test-summary: ## print "N passed, N failed" for the last `make test`
	@files=$$(ls $(RESULTS)/*.json 2>/dev/null || true); \
	if [ -z "$$files" ]; then echo "0 passed, 0 failed (no results in $(RESULTS)/)"; exit 0; fi; \
	count() { cat $$files | grep -cE "$$1" || true; }; \
	passed=$$(count '"Action":"pass","Package":"[^"]*","Test":'); \
	failed=$$(count '"Action":"fail","Package":"[^"]*","Test":'); \
	broken=$$(count '"FailedBuild":'); \
	skipped=$$(count '"Action":"skip","Package":"[^"]*","Test":'); \
	echo "$$skipped skipped"; \
	if grep -q 'corpus tier not run' $$files; then \
	  echo "corpus tier not run: the real-world corpus (../shared/fixtures, ../shared/labels) is not beside this clone; set TOOLGATE_CORPUS=DIR to a copy to run it (CI requires it)"; fi; \
	echo "$$passed passed, $$((failed + broken)) failed"

# --- benchmarks (loopback only, bounded in time) -----------------------------

NGINX = /usr/sbin/nginx
WRK   = /usr/bin/wrk

# The binaries bench-console measures. Several, comma-separated, are measured
# scenario by scenario in turn and compared with the first, e.g.
# `make bench-console BENCH_BIN=/tmp/toolgate-before,bin/toolgate`.
BENCH_BIN ?= bin/toolgate

.PHONY: bench-tools
bench-tools: ## install Debian nginx-light and wrk for the benchmarks if missing
	@missing=""; [ -x $(NGINX) ] || missing="$$missing nginx-light"; [ -x $(WRK) ] || missing="$$missing wrk"; \
	if [ -n "$$missing" ]; then $(call apt_install,the benchmarks,$$missing,nginx); fi

.PHONY: bench-console
bench-console: build bench-tools ## console under load: 50 signed-in viewers (wrk), with and without an import
	$(GO) run ./internal/bench/console --bin $(BENCH_BIN)

.PHONY: bench-bundle-api
bench-bundle-api: build bench-tools ## GET /api/v1/bundle 304 (ABBA rounds) and 200, 2 KB and 5 MB, toolgate (runtime API and console listeners) vs nginx, net/http, fasthttp: rates and CPU/request ratios (BENCH_FLAGS="-d 2s -rounds 8")
	$(GO) run ./internal/bench/bundleapi -toolgate bin/toolgate -nginx $(NGINX) -wrk $(WRK) $(BENCH_FLAGS)
.PHONY: bench-cluster
bench-cluster: postgres ## publish/approval p50, p99, ops/s: SQLite 1 console vs PostgreSQL 1 and 2 consoles (ratios)
	$(GO) test -run '^$$' -bench '^BenchmarkCluster$$' -benchtime 1x -timeout 30m ./internal/bench/cluster

.PHONY: bench-import
bench-import: ## import memory: heap peak of 1,000/5,000/20,000-operation imports against 30× the document + 50 MiB (fails over it); inspect vs its decode floor per fixture
	$(GO) test -run '^$$' -bench '^BenchmarkImportMemory$$' -benchtime 1x -timeout 20m ./internal/openapi
	$(GO) test -run '^$$' -bench '^BenchmarkInspectFloorRatio$$' -benchtime 10x -timeout 20m ./internal/cli

.PHONY: bench-runtime
bench-runtime: ## runtime swap time, RSS and MCP tools/call latency vs a minimal go-sdk server (in process and as real processes: p50/p99), and with agents authenticated vs not (ratios)
	@# Loopback only, bounded: 10 swaps per size, one RSS child pair per size
	@# (20 swaps each), 3,000 tools/call pairs per concurrency level.
	$(GO) test -run '^$$' -bench '^BenchmarkVerifyFloorRatio5000$$' -benchtime 20x -timeout 10m ./internal/bundle
	$(GO) test -run '^$$' -bench '^BenchmarkRuntimeSwap$$' -benchtime 10x -timeout 20m ./internal/runtime
	$(GO) test -run '^$$' -bench '^BenchmarkRuntimeRSS$$' -benchtime 1x -timeout 20m ./internal/runtime
	$(GO) test -run '^$$' -bench '^BenchmarkMCPToolCall$$' -benchtime 3000x -timeout 10m ./internal/runtime
	$(GO) test -run '^$$' -bench '^BenchmarkMCPToolCallCondition$$' -benchtime 3000x -count 3 -timeout 10m ./internal/runtime
	$(GO) test -run '^$$' -bench '^BenchmarkEvaluate$$' -benchtime 20000x -count 3 ./internal/condition
	$(GO) test -run '^$$' -bench '^BenchmarkMCPToolCallAuthenticated$$' -benchtime 2000x -timeout 15m ./internal/runtime
	$(GO) test -run '^$$' -bench '^BenchmarkMCPToolCallGuarded$$' -benchtime 2000x -timeout 15m ./internal/runtime
	@# Real processes: the whole binary and the runtime-only build against a
	@# go-sdk server binary (RSS at 1,000 and 5,000 tools; tools/call p50/p99
	@# at 1 and 16 sessions). TOOLGATE_BENCH_RUNTIME_BINS=a,b measures those.
	$(GO) test -run '^$$' -bench '^BenchmarkRuntimeProcess$$' -benchtime 2000x -timeout 30m ./internal/bench/runtimeproc

# Per-call decisions (R16): call requests per second a console takes, and a
# grant's consume round trip against a plain bundle 304, SQLite and
# PostgreSQL (pgtest's local server). Loopback only, bounded.
.PHONY: bench-calls
bench-calls: ## call requests/s (SQLite, PostgreSQL) and grant consume latency vs a bundle 304 (ratio)
	$(GO) test -run '^$$' -bench '^BenchmarkCallRequests$$' -benchtime 300x -count 2 -timeout 10m ./internal/runtimeapi

# Publish-to-runtime latency via the OCI registry vs via the console, in one
# run (both runtimes see every publish): OCI_POLL is both runtimes' poll
# interval, OCI_ITERATIONS the publishes measured. Loopback only, bounded.
OCI_POLL       ?= 500ms
OCI_ITERATIONS ?= 100
# Long polling: what a held request costs the console (LP_WAITERS held at once
# on each listener; the clients run in a child process), the 304 path of a
# request that does not wait, this tree against LP_BASE's in alternating runs
# (medians of LP_ROUNDS), and publish → list_changed at an MCP client via the
# console (long poll) and via the registry (OCI_POLL). Loopback only, bounded.
LP_WAITERS ?= 10000
LP_BASE    ?= main
LP_ROUNDS  ?= 6
.PHONY: bench-long-poll
bench-long-poll: registry ## long polling: bytes per waiter (10,000 on one console), the 304 path before/after, publish → list_changed via console and registry
	@# One process per listener, so each RSS figure starts from a fresh heap.
	$(GO) test -run '^$$' -bench '^BenchmarkLongPollWaiters/fasthttp$$' -benchtime 1x -timeout 10m ./internal/runtimeapi -args -waiters $(LP_WAITERS)
	$(GO) test -run '^$$' -bench '^BenchmarkLongPollWaiters/net-http$$' -benchtime 1x -timeout 10m ./internal/runtimeapi -args -waiters $(LP_WAITERS)
	@base=$$(mktemp -d); git archive $(LP_BASE) | tar -x -C $$base; \
	cp internal/runtimeapi/bench_304_test.go $$base/internal/runtimeapi/; \
	for i in $$(seq $(LP_ROUNDS)); do \
	  (cd $$base && $(GO) test -run '^$$' -bench '^BenchmarkNotModified$$' -benchtime 200000x ./internal/runtimeapi) | sed -n 's/^Benchmark/before Benchmark/p'; \
	  $(GO) test -run '^$$' -bench '^BenchmarkNotModified$$' -benchtime 200000x ./internal/runtimeapi | sed -n 's/^Benchmark/after Benchmark/p'; \
	done | tee $$base/rows.txt; \
	echo "304 path, median of $(LP_ROUNDS) alternating runs ($(LP_BASE) = before):"; \
	for k in before after; do for l in net-http fasthttp; do \
	  rows=$$(grep "^$$k BenchmarkNotModified/$$l" $$base/rows.txt); \
	  wall=$$(echo "$$rows" | awk '{print $$4}' | sort -n | awk '{a[NR]=$$1} END {print a[int((NR+1)/2)]}'); \
	  cpu=$$(echo "$$rows" | awk '{for (i=5; i<NF; i++) if ($$(i+1)=="cpu-ns/op") print $$i}' | sort -n | \
	    awk '{a[NR]=$$1} END {print a[int((NR+1)/2)]}'); \
	  printf "  %-7s %-9s %8s ns/op wall %8s ns/op CPU\n" $$k $$l $$wall $$cpu; done; done; \
	rm -rf $$base
	$(GO) test -run '^$$' -bench '^BenchmarkPublishToListChanged$$' -benchtime 1x -timeout 20m ./internal/bench/ocilatency \
	  -args -iterations $(OCI_ITERATIONS) -poll $(OCI_POLL)

.PHONY: bench-oci
bench-oci: registry ## publish → runtime latency via the OCI registry vs via the console (p50/p99, ratios)
	$(GO) test -run '^$$' -bench '^BenchmarkPublishToRuntime$$' -benchtime 1x -timeout 20m ./internal/bench/ocilatency \
	  -args -iterations $(OCI_ITERATIONS) -poll $(OCI_POLL)

.PHONY: bench
bench: bench-import bench-runtime bench-calls bench-long-poll bench-bundle-api bench-console bench-cluster bench-oci ## every benchmark above in turn (an hour or more); each fails when its own set-up fails
