# candor — build, demo, test. Every target works from a clean clone on Debian
# with Go installed; `make test` starts (and stops) its own PostgreSQL and MariaDB.
GO      ?= go
BIN     := bin/candor
COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
LDFLAGS := -X github.com/candor-bench/candor/internal/version.Commit=$(COMMIT) -X github.com/candor-bench/candor/internal/version.Version=$(VERSION)

.PHONY: build demo test test-short bench lint clean experiments

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/candor

# Build, then run YCSB workload A against the embedded SQLite default
# (loading it first), in a fresh working directory under demo/.
demo: build
	@mkdir -p demo && rm -f demo/candor.db demo/candor.db-wal demo/candor.db-shm
	cd demo && ../$(BIN) run ycsb/a --threads 4 --time 10s

# The whole test suite: gofmt and vet checks, then go test -race with a
# throwaway PostgreSQL 15 and MariaDB started (and stopped) by scripts/test.sh.
test:
	scripts/test.sh

# Every experiment plan this machine can run (resumably), then the site of
# published claims and verdicts in experiments/site/ (scripts/experiments.sh).
experiments: build
	scripts/experiments.sh

test-short:
	$(GO) test -short ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

lint:
	@test -z "$$(gofmt -l cmd internal)" || (gofmt -l cmd internal; echo "gofmt needed"; exit 1)
	$(GO) vet ./...

# Removes what the build and the demo made, and the lock files candor leaves
# beside SQLite databases; results (results/, reruns/) are never removed.
clean:
	rm -rf bin demo
	rm -f *.db.candor-lock
