# toonkit: `make test` is what CI runs (see .ci/run).
GO       ?= go
BIN      ?= bin/toonkit
PREFIX   ?= $(HOME)/.local
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -s -w -X github.com/toonkit/toonkit/cmd.version=$(VERSION)
FUZZTIME ?= 20s

.PHONY: all build install demo test vet bench fuzz completions man golden clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

install:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(PREFIX)/bin/toonkit .
	@echo "installed $(PREFIX)/bin/toonkit (make sure $(PREFIX)/bin is on your PATH)"

# Runs toonkit's main jobs on the sample files in testdata/demo.
demo: build
	@scripts/demo.sh $(BIN)

vet:
	$(GO) vet ./...

test: vet
	$(GO) test -count=1 ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/...
	scripts/bench.sh $(BIN)

# Each fuzz target for $(FUZZTIME).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

completions:
	$(GO) run ./scripts/gendocs -completions completions

man:
	$(GO) run ./scripts/gendocs -man docs/man

golden:
	$(GO) test -count=1 ./pkg/inspect/ -run Golden -update

clean:
	rm -rf bin
