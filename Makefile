# The two commands a newcomer needs: `make run` and `make test`.
GO      ?= go
BIN     := bin/gasoline
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

AXE     := extension/lib/axe.min.js

.PHONY: run build test unit e2e fuzz bench bench-page clean

run: build
	./$(BIN)

build: $(AXE)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

# npm packages pinned in package-lock.json: axe-core for the extension, the
# SARIF schema for tests.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

# The binary embeds the extension, so axe-core must be in place before any
# Go build.
$(AXE): node_modules/.package-lock.json
	cp node_modules/axe-core/axe.min.js $@

# Every test: vet, unit and handler tests with the race detector, a short
# fuzz of the ingest decoder, then end-to-end tests in headless Chromium.
test: unit fuzz e2e

unit: $(AXE)
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

fuzz:
	$(GO) test ./server -run '^$$' -fuzz FuzzIngest -fuzztime 5s

e2e: $(AXE)
	$(GO) test -tags e2e -count=1 -timeout 15m ./e2e/

bench: $(AXE)
	$(GO) test -tags e2e -run '^$$' -bench . -benchtime 2s ./features/... ./server/ ./tui/ ./e2e/

clean:
	rm -rf bin $(AXE)

# Issue 12's page benchmark: the workload page and a 50-resource page load in
# headless Chromium with and without the extension, rounds alternated.
# PAGE_BENCH_ROUNDS=n for more rounds, PAGE_BENCH_DEVTOOLS=1 to keep a
# DevTools client listening on the tab.
bench-page: $(AXE)
	$(GO) test -tags e2e -run '^$$' -bench '^BenchmarkPageCost$$' -benchtime 1x -timeout 20m ./e2e/
