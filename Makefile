# toonkit: `make test` is what CI runs (see .ci/run).
GO       ?= go
BIN      ?= bin/toonkit
# make install puts toonkit where `go install` does ($GOBIN, or $GOPATH/bin),
# or in $(PREFIX)/bin when PREFIX is given: PREFIX=/usr/local sudo make install
PREFIX   ?=
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -s -w -X github.com/toonkit/toonkit/internal/version.Stamped=$(VERSION)
FUZZTIME ?= 20s

.PHONY: all build install demo test vet bench fuzz pgo completions man golden clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

install:
ifeq ($(PREFIX),)
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' .
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
	 echo "installed $$dir/toonkit"; \
	 case ":$$PATH:" in *":$$dir:"*) ;; *) echo "note: $$dir is not on your PATH; add it, or run: PREFIX=/usr/local make install";; esac
else
	mkdir -p $(PREFIX)/bin
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(PREFIX)/bin/toonkit .
	@echo "installed $(PREFIX)/bin/toonkit"
endif

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

# default.pgo is the CPU profile that go build optimises toonkit with
# (profile-guided optimisation: hot calls inlined): sign's and verify's
# work per event, as the pkg/sign stream benchmarks do it. Run this again
# when that code changes much; a stale profile only helps less.
pgo:
	$(GO) test -run '^$$' -bench 'SignStream|VerifyStream' -benchtime 5s -cpuprofile default.pgo ./pkg/sign

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
	$(GO) test -count=1 ./pkg/bridge/ -run Golden -update

clean:
	rm -rf bin
