# The whole project from a fresh Debian 12 machine, as root:
#   make demo   installs what is missing, builds, and shows the system working end to end
#   make test   every package's tests (then the end-to-end suite)
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help

ROOT      := $(abspath .)
SCRATCH   := $(ROOT)/.build
VENV      := $(ROOT)/.venv
PACKAGES  := MediaCrypto Packager KAS Client
APT_PACKAGES := libssl-dev zlib1g-dev libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev \
                pkg-config ffmpeg python3-venv openssl unzip time linux-perf curl chromium firefox-esr nginx redis-server \
                prometheus help2man glewlwyd lintian
CONFIG    ?= debug

export PATH := /opt/swift/usr/bin:$(PATH)
export MEDIADRM_ROOT := $(ROOT)
export MEDIADRM_PYTHON := $(VENV)/bin/python

# Every package builds into one scratch path so MediaCrypto is compiled once. SwiftPM keeps one
# build plan per scratch path and does not notice that the root package changed, so the plan
# (not the compiled objects) is dropped before each package: llbuild then reuses every object
# whose inputs did not change.
DROP_PLAN := rm -f $(SCRATCH)/$(CONFIG).yaml $(SCRATCH)/$(CONFIG)/description.json

.PHONY: help deps apt venv build test unit js-test consumer replay e2e monitoring openid install deb demo demo-cluster bench fuzz js-fuzz clean

help:
	@echo "make demo    install what is missing, build, and run the demonstration"
	@echo "make test    install what is missing, build, run every package's tests and the end-to-end suite"
	@echo "make demo-cluster  two KAS nodes on one Redis store behind nginx, a playback through it (docs/kas.md)"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=] [SYSCONFDIR=/etc]  the release tools, man pages, web player, systemd unit"
	@echo "make deb     the Debian package mediadrm_<version>_<arch>.deb in out/deb/, checked by lintian"
	@echo "make deps | build | unit | js-test | consumer | replay | e2e | monitoring | openid | bench | clean"
	@echo "make fuzz    libFuzzer + ASan on every parser, FUZZ_SECONDS each (default 60); FUZZ_TARGET=name for one"
	@echo "make js-fuzz the web player's JavaScript parsers under Node, FUZZ_SECONDS each (part of make fuzz)"

deps: apt venv

apt:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  policy=/usr/sbin/policy-rc.d; made=""; \
	  if [ ! -e $$policy ]; then printf '#!/bin/sh\nexit 101\n' > $$policy && chmod 755 $$policy && made=1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; status=$$?; \
	  if [ -n "$$made" ]; then rm -f $$policy; fi; \
	  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now nginx redis-server prometheus glewlwyd >/dev/null 2>&1 || true; fi; \
	  [ $$status -eq 0 ] || exit $$status; \
	else echo "deps: Debian packages present"; fi
	@command -v swift >/dev/null || { echo "deps: the Swift toolchain (/opt/swift) is missing" >&2; exit 1; }

# The independent checkers (Python cryptography, otdf-python, m3u8, Shaka Packager binaries)
# live in a git-ignored venv, rebuilt when the requirements change.
venv: $(VENV)/.stamp
$(VENV)/.stamp: Tools/python/requirements.txt
	@echo "deps: preparing the Python venv for independent checks"
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	@$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r Tools/python/requirements.txt
	@touch $@

build: apt
	@for p in $(PACKAGES); do \
	  echo "build: $$p"; \
	  $(DROP_PLAN); \
	  swift build --package-path Packages/$$p --scratch-path $(SCRATCH) -c $(CONFIG); \
	done

unit: deps
	@for p in $(PACKAGES); do \
	  echo "test: $$p"; \
	  $(DROP_PLAN); \
	  swift test --package-path Packages/$$p --scratch-path $(SCRATCH) -c $(CONFIG) || exit 1; \
	done

test: unit js-test consumer replay e2e monitoring openid

# The web player's Node tests (Packages/WebPlayer/tests/*.test.js, docs/web.md "Tests"): its
# parsers on the fuzz corpora and the shared reader vectors, the ABR estimator, the reason codes.
# The file list is the shell's glob, so Node 18's and later Nodes' `--test` read it alike.
js-test:
	@echo "test: web player (node --test)"
	@node --test Packages/WebPlayer/tests/*.test.js

# Every fuzz corpus and regression input through the fuzz targets' entry points, without a
# sanitizer (docs/fuzzing.md).
replay: deps
	@echo "test: fuzz corpus replay"
	@$(DROP_PLAN)
	@swift test --package-path Tests/Fuzz --scratch-path $(SCRATCH) -c $(CONFIG)

# A package that declares its own modules `Crypto`, `JSON`, `ZIP`, `HLS` and `MP4` beside every
# MediaCrypto library: it must build (SwiftPM refuses two modules of one name, the compiler a
# type name that its `Crypto` and MediaDRMCrypto both declare) and its check run.
consumer: apt
	@echo "test: consumer package (own Crypto, JSON, ZIP, HLS, MP4 modules beside MediaCrypto)"
	@$(DROP_PLAN)
	@swift build --package-path Tests-Consumer --scratch-path $(SCRATCH) -c $(CONFIG)
	@$(SCRATCH)/$(CONFIG)/ConsumerCheck

# The end-to-end suite is part of every checkout: a missing Tests-E2E fails the run, never skips it.
e2e: deps
	@test -f Tests-E2E/Package.swift || { echo "e2e: Tests-E2E/Package.swift is missing: the end-to-end suite cannot run" >&2; exit 1; }
	@echo "test: end to end"
	@$(DROP_PLAN)
	swift test --package-path Tests-E2E --scratch-path $(SCRATCH) -c $(CONFIG)
	@echo "test: the web player in Chromium and Firefox"
	@$(DROP_PLAN)
	@swift build --package-path Packages/KAS --scratch-path $(SCRATCH) -c $(CONFIG) --product kas >/dev/null
	@$(DROP_PLAN)
	@swift build --package-path Packages/Packager --scratch-path $(SCRATCH) -c $(CONFIG) --product packager >/dev/null
	@CONFIG=$(CONFIG) $(VENV)/bin/python Tests-E2E/Browser/browser_suite.py

# The shipped Prometheus alert rules (deploy/prometheus): checked and unit-tested by promtool,
# then loaded by a real Prometheus that scrapes a real `kas serve` (docs/kas.md "Alerts").
monitoring: deps
	@echo "test: monitoring (promtool, Prometheus scraping kas serve)"
	@promtool check rules deploy/prometheus/kas-alerts.yml >/dev/null
	@cd deploy/prometheus && promtool test rules kas-alerts.test.yml
	@$(DROP_PLAN)
	@swift build --package-path Packages/KAS --scratch-path $(SCRATCH) -c $(CONFIG) --product kas >/dev/null
	@CONFIG=$(CONFIG) $(VENV)/bin/python Tests-E2E/Monitoring/prometheus_suite.py

# An issuer trusted by its URL alone: Debian's glewlwyd (OpenID provider, HTTPS with a test CA)
# issues the tokens, `kas serve` reads its keys by discovery, follows a key rotation and rides out
# the provider's outage (docs/kas.md "Issuers by discovery"). About 70 s.
openid: deps
	@echo "test: OpenID provider (glewlwyd, discovery, key rotation, staleness)"
	@$(DROP_PLAN)
	@swift build --package-path Packages/KAS --scratch-path $(SCRATCH) -c $(CONFIG) --product kas >/dev/null
	@CONFIG=$(CONFIG) $(VENV)/bin/python Tests-E2E/OpenID/openid_suite.py

# The release tools (Swift runtime linked statically), man pages, the web player, the systemd
# unit and an example configuration under $(DESTDIR)$(PREFIX) (docs/operations.md).
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
install: apt
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" SYSCONFDIR="$(SYSCONFDIR)" Tools/install.sh

# The same files as a Debian package (dpkg-deb, maintainer scripts and templates in deploy/debian/),
# lintian-clean, in out/deb/ (docs/operations.md, "The Debian package").
deb: apt
	@Tools/build-deb.sh $(ROOT)/out/deb

demo: deps
	@Tools/demo.sh

# Two `kas serve` nodes sharing one redis-server and one key ring behind nginx (docs/kas.md,
# "Scale-out with Redis").
demo-cluster: deps
	@Tools/demo-cluster.sh

bench: deps
	@Tools/bench.sh

# libFuzzer harnesses (docs/fuzzing.md): built with -sanitize=fuzzer,address (and -enable-testing:
# the targets reach parsers the KAS keeps internal through @testable imports) into their own
# scratch path (sanitized objects never mix with the plain build), in release mode (several
# times the executions of a debug build), linked with the toolchain's
# lld (Debian's gold stops with an internal error on these objects), then each target runs for
# FUZZ_SECONDS from its checked-in seed corpus; any crash, timeout or out-of-memory fails.
FUZZ_SECONDS ?= 60
FUZZ_TARGET  ?=
FUZZ_SCRATCH := $(ROOT)/.build/fuzz
fuzz: deps js-fuzz
	@echo "fuzz: building the harness (-sanitize=fuzzer,address)"
	@swift build --package-path Tests/Fuzz/Harness --scratch-path $(FUZZ_SCRATCH) -c release -Xswiftc -enable-testing \
	  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld
	@Tests/Fuzz/run-fuzz.sh $(FUZZ_SCRATCH)/release/FuzzHarness $(FUZZ_SECONDS) $(FUZZ_TARGET)

# The web player's JavaScript parsers under Node (docs/fuzzing.md, "JavaScript parsers"): a
# mutation loop from the same corpora, FUZZ_SECONDS per target (js-<name>; FUZZ_TARGET=js-zip for
# one, a Swift target's name skips them); a finding is saved under out/fuzz-js/findings/ and fails.
js-fuzz:
	@echo "fuzz: the web player's JavaScript parsers"
	@node Packages/WebPlayer/tests/fuzz.js --seconds $(FUZZ_SECONDS) --out out/fuzz-js $(if $(FUZZ_TARGET),--target $(FUZZ_TARGET))

clean:
	rm -rf $(SCRATCH) Packages/*/.build Tests-E2E/.build Tests-Consumer/.build out
