# The two commands a newcomer needs: `make run` and `make test`.
GO      ?= go
BIN     := bin/gasoline
# The version is the release, a constant in cmd_version.go; the build adds
# the commit it was made from (abc1234, or abc1234-dirty), shown by
# gasoline --version.
COMMIT  ?= $(shell git describe --always --dirty --abbrev=7 --exclude '*' 2>/dev/null)
LDFLAGS := -X main.commit=$(COMMIT)

AXE     := extension/lib/axe.min.js

.PHONY: run build install test tools lint node-test unit e2e fuzz bench bench-page attack clean

run: build
	./$(BIN)

# Static (no cgo): nothing needs it, and a static binary starts faster,
# which an AI client pays on every launch.
build: $(AXE)
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

# make install puts gasoline on your PATH: in GOBIN when Go has one set,
# else in ~/.local/bin (override with make install INSTALL_DIR=...).
INSTALL_DIR ?= $(or $(shell $(GO) env GOBIN),$(HOME)/.local/bin)

install: build
	install -d "$(INSTALL_DIR)"
	install -m 0755 $(BIN) "$(INSTALL_DIR)/gasoline"
	@echo "Installed $(INSTALL_DIR)/gasoline. Next: gasoline setup"
	@case ":$$PATH:" in *":$(INSTALL_DIR):"*) ;; *) echo "$(INSTALL_DIR) is not on your PATH yet: add it in your shell's profile.";; esac

# npm packages pinned in package-lock.json: axe-core for the extension, the
# SARIF schema for tests.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

# The binary embeds the extension, so axe-core must be in place before any
# Go build.
$(AXE): node_modules/.package-lock.json
	cp node_modules/axe-core/axe.min.js $@

# Every test: lint, the service worker's pure modules under Node, vet, unit
# and handler tests with the race detector, a short fuzz of the ingest
# decoder, then end-to-end tests in headless Chromium.
test: tools lint node-test unit fuzz e2e

# The end-to-end tests drive Chromium, Firefox ESR and tmux: without one,
# stop before anything runs, naming what is missing and how to install it.
tools:
	@m=; [ -x "$${CHROMIUM:-/usr/lib/chromium/chromium}" ] || m="$$m chromium"; \
	[ -n "$$FIREFOX" ] || command -v firefox-esr >/dev/null || m="$$m firefox-esr"; \
	command -v tmux >/dev/null || m="$$m tmux"; \
	[ -z "$$m" ] || { echo "make test needs$$m, not found: sudo apt-get install$$m (or set CHROMIUM, FIREFOX to a browser's path)"; exit 1; }

# staticcheck at the version go.mod pins (its tool directive), over every
# package including the e2e-tagged ones; staticcheck.conf picks the checks.
# Then eslint (eslint.config.mjs) and tsc over the extension's JavaScript,
# at the versions package-lock.json pins: the worker with its globals
# (tsconfig.json), popup and options with the DOM's (tsconfig.pages.json),
# the content and page-world scripts with the DOM's (tsconfig.content.json),
# the messages between them typed in extension/types.d.ts.
lint: $(AXE)
	$(GO) tool staticcheck -tags e2e ./...
	node_modules/.bin/eslint .
	node_modules/.bin/tsc --checkJs --noEmit -p tsconfig.json
	node_modules/.bin/tsc --checkJs --noEmit -p tsconfig.pages.json
	node_modules/.bin/tsc --checkJs --noEmit -p tsconfig.content.json

# The extension's pure modules (no chrome.* at import time), tested in Node.
node-test:
	node --test extension/test/

unit: $(AXE)
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# Budgets in executions (about 5 s each on a 2-core machine), not seconds: Go's
# coordinator can report a duration budget's own end as "context deadline
# exceeded" under load (go.dev/issue/75804, fixed in Go 1.27).
fuzz:
	$(GO) test ./server -run '^$$' -fuzz FuzzIngest -fuzztime 15000x
	$(GO) test ./features/history -run '^$$' -fuzz FuzzDecode -fuzztime 120000x

e2e: tools $(AXE)
	$(GO) test -tags e2e -count=1 -timeout 25m ./e2e/

# Attacks against the real binary (a flood of events with stalled readers,
# held connections, a huge relay request, 4.5 MB audit calls, an MCP peer
# that never reads), with their figures (minutes; not part of `make test`).
# ATTACK_SECONDS=10 for a short flood, ATTACK_AUDIT_CALLS=100 for fewer
# 4.5 MB calls.
attack: $(AXE)
	$(GO) test -tags 'e2e attack' -count=1 -v -timeout 40m -run '^TestAttack' ./e2e/

# Every benchmark but the page's (make bench-page: minutes of Chromium).
# DOM_BENCH_PEER=dir DOM_BENCH_PEER_SERVER=binary (the previous release's
# unpacked extension and its server's binary) adds its DOM query round trip
# beside ours, their calls in turn in the same run (ratio-p50: ours over its;
# see e2e/bench_dom_peer_test.go and extension/PERFORMANCE.md); without them
# that benchmark says it is skipped.
bench: $(AXE)
	$(GO) test -tags e2e -run '^$$' -bench '^Benchmark([^P]|P[^a])' -benchtime 2s ./features/... ./server/ ./tui/ ./e2e/

clean:
	rm -rf bin $(AXE)

# The page benchmark behind extension/PERFORMANCE.md's figures (what the
# extension costs a page): the workload page and a 50-resource page load in
# headless Chromium, with the extension and without it in pairs, in two tabs
# of one Chromium (the tab without it in a new browser context, where the
# extension does not run); a do-nothing control extension the same way (the
# machine's noise); a fresh Chromium each a round; ~3.5 min a round.
# PAGE_BENCH_ROUNDS=n rounds (5 by default), PAGE_BENCH_PAIRS=n workload pairs
# a round (10), PAGE_BENCH_DEVTOOLS=1 to keep a DevTools client listening on
# the tabs, PAGE_BENCH_SAMPLES=file to pool this run's rounds with those kept
# in file by earlier runs. PAGE_BENCH_PEER=dir adds another unpacked
# extension in a third Chromium each round (PAGE_BENCH_PEER_SERVER=binary its
# server, PAGE_BENCH_PEER_PAIRS=n its pairs a round, PAGE_BENCH_PEER_TRACK=0
# to leave 0.7.9's "tracked tab" unset: see e2e/bench_peer_test.go).
bench-page: $(AXE)
	$(GO) test -tags e2e -run '^$$' -bench '^BenchmarkPageCost$$' -benchtime 1x -timeout 60m ./e2e/
