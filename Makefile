# The two commands a newcomer needs: `make run` and `make test`.
GO      ?= go
BIN     := bin/gasoline
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: run build test unit e2e fuzz bench clean

run: build
	./$(BIN)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

# Every test: vet, unit and handler tests with the race detector, a short
# fuzz of the ingest decoder, then end-to-end tests in headless Chromium.
test: unit fuzz e2e

unit:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./features/... ./server/... ./extension/...

fuzz:
	$(GO) test ./server -run '^$$' -fuzz FuzzIngest -fuzztime 5s

e2e:
	$(GO) test -count=1 -timeout 10m .

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./server/ .

clean:
	rm -rf bin
