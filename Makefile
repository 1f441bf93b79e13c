# toonkit: `make test` is what CI runs (see .ci/run).
GO       ?= go
BIN      ?= bin/toonkit
# make install puts toonkit where `go install` does ($GOBIN, or $GOPATH/bin),
# and its man pages and shell completions under $XDG_DATA_HOME (default
# ~/.local/share). With PREFIX (sudo make install PREFIX=/usr/local) all go
# under PREFIX: bin/, share/man/man1/, share/bash-completion/completions/,
# share/zsh/site-functions/, share/fish/vendor_completions.d/. DESTDIR is
# put before PREFIX, for packagers: make install PREFIX=/usr DESTDIR=pkgroot
PREFIX   ?=
DESTDIR  ?=
ifeq ($(PREFIX),)
DATADIR  ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)
else
DATADIR  ?= $(PREFIX)/share
endif
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -s -w -X github.com/toonkit/toonkit/internal/version.Stamped=$(VERSION)
FUZZTIME ?= 20s
# The release whose notes make release-notes prints: the newest tag.
RELEASE  ?= $(shell git describe --tags --abbrev=0 2>/dev/null)

.PHONY: all build install uninstall release-notes demo test test-slow vet bench fuzz pgo completions man golden clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

# Where install puts the man pages and completions (under $(DESTDIR)).
MANDIR   := $(DESTDIR)$(DATADIR)/man/man1
BASHDIR  := $(DESTDIR)$(DATADIR)/bash-completion/completions
ZSHDIR   := $(DESTDIR)$(DATADIR)/zsh/site-functions
FISHDIR  := $(DESTDIR)$(DATADIR)/fish/vendor_completions.d

install:
ifeq ($(PREFIX),)
ifneq ($(DESTDIR),)
	$(error DESTDIR needs PREFIX, for example: make install PREFIX=/usr DESTDIR=$(DESTDIR))
endif
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' .
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
	 echo "installed $$dir/toonkit"; \
	 case ":$$PATH:" in *":$$dir:"*) ;; *) echo "note: $$dir is not on your PATH; add it, or run: PREFIX=/usr/local make install";; esac
else
	install -d $(DESTDIR)$(PREFIX)/bin
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(DESTDIR)$(PREFIX)/bin/toonkit .
	@echo "installed $(DESTDIR)$(PREFIX)/bin/toonkit"
endif
	install -d $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 644 docs/man/*.1 $(MANDIR)/
	install -m 644 completions/toonkit.bash $(BASHDIR)/toonkit
	install -m 644 completions/toonkit.zsh $(ZSHDIR)/_toonkit
	install -m 644 completions/toonkit.fish $(FISHDIR)/toonkit.fish
	@echo "installed man pages in $(MANDIR), completions in $(BASHDIR), $(ZSHDIR) and $(FISHDIR)"

# Removes what install put in place (same PREFIX and DESTDIR).
uninstall:
ifeq ($(PREFIX),)
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; rm -f "$$dir/toonkit"
else
	rm -f $(DESTDIR)$(PREFIX)/bin/toonkit
endif
	rm -f $(addprefix $(MANDIR)/,$(notdir $(wildcard docs/man/*.1))) $(BASHDIR)/toonkit $(ZSHDIR)/_toonkit $(FISHDIR)/toonkit.fish

# The CHANGELOG.md section of a release, for its tag and release page
# (docs/releasing.md): make release-notes RELEASE=v0.2.0, or the newest tag.
release-notes:
	@scripts/release-notes.sh '$(RELEASE)' CHANGELOG.md

# Runs toonkit's main jobs on the sample files in testdata/demo.
demo: build
	@scripts/demo.sh $(BIN)

# go vet, and staticcheck (pinned in go.mod's tool block) with no findings.
# .ci/run runs it before make test. make test runs only the checks go test
# runs itself (a part of go vet's).
vet:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

# make test: every package's tests under -short, built once, without
# default.pgo (-pgo=off: the profile changes speed, not behaviour, and a
# second build of every package with it costs minutes on a fresh clone).
# -short skips the long comparisons (needs.Slow: -j 1 against -j 4 over
# every input and flag set, jq, tshark and Python over whole corpora, make
# install, the action's steps, the --help and docs/scaling.md examples) and
# runs the big inputs at the size their property needs; each keeps a quick
# counterpart here. go vet and staticcheck are make vet's, and the race
# detector is make test-slow's: .ci/run runs all three.
test:
	$(GO) test -pgo=off -short -count=1 ./...

# make test-slow: what make test leaves out: every test at full size, then
# the race detector, every test at full size, over cmd and every package
# that runs goroutines: the engine, the codecs the workers drive, the
# commands' packages, tap, exec and the helpers (the binary cmd's signal,
# tap and exec tests run is built with -race too; the shell examples' is
# not), and again over the tests that compare workers with one worker.
# .ci/run runs make vet, make test, then make test-slow.
RACE_PKGS := ./cmd/... ./internal/lsp/... ./internal/mcpproxy/... ./internal/mcpserve/... ./toon/... ./kado/... ./internal/toolproc/... ./internal/outfile/... ./internal/codec/... ./internal/sign/... ./internal/seal/... ./internal/query/... ./internal/capture/... ./internal/inspect/... ./internal/tap/... ./internal/bridge/... ./internal/stats/... ./internal/validate/... ./internal/narratoria/host/... ./internal/membound/... ./internal/cutwriter/... $(if $(wildcard internal/pipeline),./internal/pipeline/...) $(if $(wildcard internal/records),./internal/records/... ./internal/readahead/...)

test-slow:
	$(GO) test -count=1 ./...
	$(GO) test -race -count=1 $(RACE_PKGS)
	$(GO) test -race -count=1 -run 'Workers' ./internal/inspect/ ./internal/validate/
	$(GO) test -race -count=1 -run 'Stream' ./internal/bridge/
	$(GO) test -race -count=1 -run 'Printer' ./internal/narratoria/host/

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./internal/... ./toon/... ./kado/...
	BENCH_QUERY_BIG_MB=$${BENCH_QUERY_BIG_MB:-1000} scripts/bench.sh $(BIN)

# default.pgo is the CPU profile that go build optimises toonkit with
# (profile-guided optimisation: hot calls inlined): sign's and verify's
# work per event, as the internal/sign stream benchmarks do it. Run this again
# when that code changes much; a stale profile only helps less.
# The profile the build is optimised with (default.pgo, beside the main
# package): signing and verifying, and inspect --oneline of a capture of
# small frames, merged.
PGOTMP ?= $(or $(TMPDIR),/tmp)
pgo:
	$(GO) test -run '^$$' -bench 'SignStream|VerifyStream' -benchtime 5s -cpuprofile $(PGOTMP)/sign.pgo ./internal/sign
	$(GO) test -run '^$$' -bench 'CaptureOneLine/oneline/j2' -benchtime 5s -cpuprofile $(PGOTMP)/inspect.pgo ./internal/inspect
	$(GO) tool pprof -proto $(PGOTMP)/sign.pgo $(PGOTMP)/inspect.pgo > default.pgo

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
	$(GO) test -count=1 ./internal/inspect/ -run Golden -update
	$(GO) test -count=1 ./internal/bridge/ -run Golden -update

clean:
	rm -rf bin
