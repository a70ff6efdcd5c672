# MediShare. `make run` builds and starts the app; `make test` runs every suite.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

VERSION     := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO_LDFLAGS  := -s -w -X main.version=$(VERSION)
SQLC_VERSION := v1.30.0
TOOLS       := $(CURDIR)/.tools/bin
SQLC        := $(TOOLS)/sqlc-$(SQLC_VERSION)
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(TOOLS)/golangci-lint-$(GOLANGCI_LINT_VERSION)
WEB_DEPS    := web/node_modules/.installed

# Every step of `make test` is timed and logged here (scripts/step.sh).
STEPS := $(CURDIR)/data/test-steps
STEP  := scripts/step.sh $(STEPS)
# How many steps of `make test` run side by side. Two cores are kept busy by
# the compilers and test processes; the third slot goes to whatever is waiting
# on the network, PostgreSQL or a browser (downloads, apt, Playwright).
TEST_JOBS ?= 3

.PHONY: codecs build web web-deps run test test-steps lint vet test-go test-short test-web web-lint web-typecheck web-unit test-e2e \
	test-interop packages s3-server \
	bench bench-viewer bench-peer bench-corpus soak check-generated generate tools db-stop clean

## build: the web app, then bin/medishare with the app embedded
# With go's default flags, which golangci-lint's package loading and the
# tools below use too: a first `make test` compiles the standard library and
# the modules they share once. (The container image builds without cgo and
# with -trimpath; see the Dockerfile.)
build: web codecs
	@$(STEP) build-server go build -ldflags '$(GO_LDFLAGS)' -o bin/medishare ./cmd/medishare

## codecs: the sandboxed image decoders (OpenJPEG, DCMTK's IJG and CharLS compiled to WebAssembly from pinned sources), which internal/medimg/codec embeds; a no-op when up to date
# Every target that compiles Go depends on it: the package embeds the .wasm
# files, which are build output and not in the repository.
codecs:
	@$(STEP) codecs scripts/codecs.sh

# Type checking is left to `make test` (test-web), so it runs once.
web: $(WEB_DEPS)
	@$(STEP) build-web bash -c 'cd web && npm run build'

web-deps: $(WEB_DEPS)
$(WEB_DEPS): web/package.json web/package-lock.json
	@$(STEP) web-deps bash -c 'cd web && npm ci --no-audit --no-fund'
	touch $@

## run: build and serve on http://localhost:8080 in development mode
run: build
	scripts/run-dev.sh

## test: every suite (generated code, lint and its self-test, Go tests with -race, web lint, types and unit tests, Playwright); independent steps run side by side, and each step's time is printed at the end
# The test PostgreSQL cluster and S3 server are stopped at the end, passed
# or failed: nothing of a run holds a port that another checkout's run needs.
test:
	@scripts/step.sh --reset $(STEPS)
	@rc=0; $(MAKE) --no-print-directory -j$(TEST_JOBS) test-steps || rc=$$?; \
		scripts/step.sh --summary $(STEPS); \
		scripts/pg.sh stop data/postgres-test >/dev/null 2>&1; scripts/s3.sh stop data/s3-test >/dev/null 2>&1; \
		if [ $$rc -eq 0 ]; then echo "make test: every suite passed"; else echo "make test: FAILED" >&2; fi; exit $$rc

# Make starts them in this order: the longest first, so that the short ones
# fill the gaps.
test-steps: packages test-go s3-server web-unit test-e2e test-interop lint check-generated web-lint web-typecheck

## packages: the Debian packages the tests use (PostgreSQL, Chromium, curl, Orthanc and its DICOMweb plugin, DCMTK and GDCM as reference decoders), in one apt transaction
# The Go tests install DCMTK and GDCM themselves when run alone (through the
# same script and lock).
packages:
	@$(STEP) packages scripts/apt-ensure.sh '/usr/lib/postgresql/*/bin/initdb:postgresql' curl:curl chromium:chromium \
		Orthanc:orthanc /usr/share/orthanc/plugins/libOrthancDicomWeb.so:orthanc-dicomweb \
		dcmdjpeg:dcmtk gdcmconv:libgdcm-tools

## lint: golangci-lint with .golangci.yml (the layers' import rules, every go vet analyzer, unused code, unchecked errors, staticcheck), then its self-test
lint: $(GOLANGCI_LINT) codecs
	@$(STEP) lint $(GOLANGCI_LINT) run ./...
	@$(STEP) lint-selftest scripts/lint-selftest.sh $(GOLANGCI_LINT)

# golangci-lint's govet runs every analyzer `go vet` does.
vet: lint

# Vet is golangci-lint's (make lint). The S3 test server is built beside
# the tests' compilation (its own step in make test); an S3 test that comes
# first waits for it (scripts/s3.sh builds it once, under a lock).
# internal/bench holds only benchmarks (make bench), which lint type-checks:
# it is not linked here.
test-go: codecs
	@$(STEP) test-go go test -race -vet=off -count=1 -timeout 20m $$(go list ./... | grep -v '/internal/\(bench\|interop\)$$')

## test-interop: real DICOMweb clients against bin/medishare (Debian's Orthanc with its DICOMweb plugin stores, finds and retrieves a study)
# Its own step: it runs the built binary (make build) and Orthanc (make
# packages; the test installs them through scripts/apt-ensure.sh as well
# when run on its own).
test-interop: build packages
	@$(STEP) test-interop go test -vet=off -count=1 -timeout 10m ./internal/interop/

## test-short: the fast tier of the Go tests (no real-process or long corpus tests), for the edit-test loop
test-short: s3-server codecs
	go test -short -vet=off -count=1 ./...

s3-server:
	@$(STEP) build-versitygw scripts/s3.sh build data/s3-test

test-web: web-lint web-typecheck web-unit

web-lint: $(WEB_DEPS)
	@$(STEP) web-lint bash -c 'cd web && npm run lint'

web-typecheck: $(WEB_DEPS)
	@$(STEP) web-typecheck bash -c 'cd web && npm run typecheck'

web-unit: $(WEB_DEPS)
	@$(STEP) web-unit bash -c 'cd web && npm test'

test-e2e: build packages
	@$(STEP) e2e bash -c 'scripts/ensure-chromium.sh && cd web && npm run e2e'

## bench: upload/download throughput, CPU per download, previews, server and preview memory, lists at 100,000 records and the audit log at a million entries, against the real process; writes docs/performance.md
bench: build
	scripts/apt-ensure.sh wrk:wrk
	BENCH_REPORT=$(CURDIR)/docs/performance.md go test -run '^$$' -bench 'BenchmarkTransfers|BenchmarkContents|BenchmarkPreviewMemory|BenchmarkLists|BenchmarkMessages' -benchtime 1x -timeout 60m ./internal/bench/
	$(MAKE) --no-print-directory bench-viewer
	@cat docs/performance.md

## bench-viewer: the DICOM viewer in headless Chromium against the real binary: time to the first image of a 300-instance CT and images per second scrolling it; writes docs/performance.md
bench-viewer: build packages
	scripts/ensure-chromium.sh
	cd web && BENCH_REPORT=$(CURDIR)/docs/performance.md npx playwright test --config bench/playwright.config.ts

## bench-peer: MediShare beside Orthanc (installs Debian's orthanc, orthanc-postgresql and wrk), then bench-corpus; writes docs/performance.md
bench-peer: build
	scripts/bench-peer.sh
	scripts/bench-corpus.sh

## bench-corpus: DICOM coverage on public Debian-packaged test files, beside Orthanc with its GDCM plugin (installs orthanc, orthanc-gdcm); writes docs/performance.md
bench-corpus: codecs
	scripts/bench-corpus.sh

## soak: a mixed workload (sign-ins, lists, uploads, downloads, previews, shares, verifications, messages) at SOAK_RATE requests a second (50) for SOAK_DURATION (15m) against one real process: errors, p99 per route, the server's memory over time; writes docs/performance.md
soak: build
	BENCH_REPORT=$(CURDIR)/docs/performance.md go test -run '^$$' -bench BenchmarkSoak -benchtime 1x -timeout 40m ./internal/bench/

## generate: regenerate the sqlc code from migrations/ and internal/store/postgres/queries/
generate: $(SQLC)
	$(SQLC) generate

## check-generated: fail when the committed sqlc code is stale
check-generated: $(SQLC)
	@$(STEP) check-generated bash -c '$(SQLC) diff || { echo "sqlc output is stale: run make generate and commit the result" >&2; exit 1; }'

# sqlc built without cgo uses its WebAssembly parser instead of compiling
# PostgreSQL's C parser: it installs in about a minute.
$(SQLC):
	mkdir -p $(TOOLS)
	@$(STEP) build-sqlc env CGO_ENABLED=0 GOBIN=$(TOOLS) go install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)
	mv $(TOOLS)/sqlc $@

# golangci-lint installs from the module proxy in about three minutes on two cores.
$(GOLANGCI_LINT):
	mkdir -p $(TOOLS)
	@$(STEP) build-golangci-lint env GOBIN=$(TOOLS) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(TOOLS)/golangci-lint $@

tools: $(SQLC) $(GOLANGCI_LINT) s3-server

## db-stop: stop the development and test PostgreSQL clusters and the test S3 server
db-stop:
	-scripts/pg.sh stop data/postgres
	-scripts/pg.sh stop data/postgres-test
	-scripts/s3.sh stop data/s3-test

clean: db-stop
	rm -rf bin .tools web/dist/assets web/dist/index.html internal/medimg/codec/wasm/*.wasm internal/medimg/codec/wasm/.stamp
