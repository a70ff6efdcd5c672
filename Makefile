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

.PHONY: build web run test lint vet test-go test-web test-e2e bench bench-peer soak check-generated generate tools db-stop clean

## build: the web app, then bin/medishare with the app embedded
build: web
	go build -trimpath -ldflags '$(GO_LDFLAGS)' -o bin/medishare ./cmd/medishare

web: $(WEB_DEPS)
	cd web && npm run build

$(WEB_DEPS): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

## run: build and serve on http://127.0.0.1:8080 in development mode
run: build
	scripts/run-dev.sh

## test: generated code, Go lint (and its self-test), vet, Go tests with -race, web lint/types/unit tests, Playwright
test: check-generated lint vet test-go test-web test-e2e
	@echo "make test: every suite passed"

## lint: golangci-lint with .golangci.yml (the layers' import rules, unused code, unchecked errors, staticcheck), then its self-test
lint: $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run ./...
	scripts/lint-selftest.sh $(GOLANGCI_LINT)

vet:
	go vet ./...

# The S3 server for the blob store's tests is built first, so no test waits on it.
test-go:
	scripts/s3.sh build data/s3-test
	go test -race -count=1 -timeout 20m ./...

test-web: $(WEB_DEPS)
	cd web && npm run lint && npm run typecheck && npm test

test-e2e: build
	scripts/ensure-chromium.sh
	cd web && npm run e2e

## bench: upload/download throughput, CPU per download, previews, server and preview memory, lists at 100,000 records and the audit log at a million entries, against the real process; writes docs/performance.md
bench: build
	scripts/apt-ensure.sh wrk:wrk
	BENCH_REPORT=$(CURDIR)/docs/performance.md go test -run '^$$' -bench 'BenchmarkTransfers|BenchmarkContents|BenchmarkPreviewMemory|BenchmarkLists|BenchmarkMessages' -benchtime 1x -timeout 60m ./internal/bench/
	@cat docs/performance.md

## bench-peer: MediShare beside Orthanc (installs Debian's orthanc, orthanc-postgresql and wrk); writes docs/performance.md
bench-peer: build
	scripts/bench-peer.sh

## soak: a mixed workload (sign-ins, lists, uploads, downloads, previews, shares, verifications, messages) at SOAK_RATE requests a second (50) for SOAK_DURATION (15m) against one real process: errors, p99 per route, the server's memory over time; writes docs/performance.md
soak: build
	BENCH_REPORT=$(CURDIR)/docs/performance.md go test -run '^$$' -bench BenchmarkSoak -benchtime 1x -timeout 40m ./internal/bench/

## generate: regenerate the sqlc code from migrations/ and internal/store/postgres/queries/
generate: $(SQLC)
	$(SQLC) generate

## check-generated: fail when the committed sqlc code is stale
check-generated: $(SQLC)
	@$(SQLC) diff || { echo "sqlc output is stale: run 'make generate' and commit the result" >&2; exit 1; }

# sqlc built without cgo (its WebAssembly parser) installs in about a minute.
$(SQLC):
	mkdir -p $(TOOLS)
	CGO_ENABLED=0 GOBIN=$(TOOLS) go install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)
	mv $(TOOLS)/sqlc $@

# golangci-lint installs from the module proxy in about three minutes on two cores.
$(GOLANGCI_LINT):
	mkdir -p $(TOOLS)
	CGO_ENABLED=0 GOBIN=$(TOOLS) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(TOOLS)/golangci-lint $@

tools: $(SQLC) $(GOLANGCI_LINT)

## db-stop: stop the development and test PostgreSQL clusters and the test S3 server
db-stop:
	-scripts/pg.sh stop data/postgres
	-scripts/pg.sh stop data/postgres-test
	-scripts/s3.sh stop data/s3-test

clean: db-stop
	rm -rf bin .tools web/dist/assets web/dist/index.html
