# cinegraph — build, demo, test, bench. `make demo` and `make test` do all set-up on a fresh
# Debian 12 machine (apt packages through scripts/setup.sh).
SWIFT ?= swift
# Release builds target the machine's vector unit: AVX-512 with vector popcount (the stereo
# matcher's census costs) where present, else AVX2 (2-3x on pixel loops); `make ARCH=` builds
# for baseline x86-64.
ARCH ?= $(shell if grep -qw avx512_vpopcntdq /proc/cpuinfo 2>/dev/null && grep -qw avx512bw /proc/cpuinfo; \
	then echo "-Xswiftc -target-cpu -Xswiftc icelake-server"; \
	elif grep -qw avx2 /proc/cpuinfo 2>/dev/null; then echo "-Xswiftc -target-cpu -Xswiftc haswell"; fi)
# One build for everything `make test` runs: optimised (the tests' pixel work runs at the speed
# users get; a debug build was 48x slower on a pixel loop and the suite took half an hour), with
# -enable-testing for the suites' @testable imports, and the shared Swift runtime (plugins need it).
BUILD_FLAGS = -c release $(ARCH) -Xswiftc -enable-testing
# The binary users run links the Swift runtime and Foundation in (--static-swift-stdlib): a
# tool's process starts in ~5 ms instead of ~30 (docs/architecture.md). SwiftPM builds it as a
# different configuration from the test build: after `make build`, `make release` compiles
# everything again (458 s here), and the other way round; `make test` needs only the test build.
RELEASE_FLAGS = $(BUILD_FLAGS) --static-swift-stdlib
BIN = $(shell $(SWIFT) build $(BUILD_FLAGS) --show-bin-path 2>/dev/null)
RELEASE_BIN = $(BIN)

.PHONY: setup release demo build check test validate examples plugin bench score crowds bodies showcase docs sample soak clean install uninstall deb test-install

setup:
	@bash scripts/setup.sh

release: setup
	$(SWIFT) build $(RELEASE_FLAGS) --product cinegraph

## The cinematic demo: a synthetic take recorded as an asset with automatic focus, rendered with
## bokeh to out/demo-*.mp4, its focus plot and a contact sheet (docs/demo.md).
demo: release
	$(RELEASE_BIN)/cinegraph demo

## The optimised build with the tests (shared Swift runtime: what tests and plugins run). One
## invocation: building the tool and the test bundle as two products compiled the dependencies
## twice (643 s against 614 s from a fresh clone).
build: setup
	$(SWIFT) build $(BUILD_FLAGS) --build-tests

## The inner loop: unit suites only (no GStreamer pipeline, no browser, no process), < 2 min.
check: build
	BIN=$(BIN) scripts/run-tests.sh --tier unit

validate: build
	$(BIN)/cinegraph validate graphs/*.conf
	python3 scripts/docs-tables.py $(BIN)/cinegraph --check
	python3 scripts/lint-pages.py

## The embedding examples: a package that defines and runs a custom node, and a plugin.
examples: build plugin
	# (no build-manifest caching: a file added to cinegraph is a file added to this build too)
	cd Examples/CustomNode && $(SWIFT) run --disable-build-manifest-caching timecode-demo ../../out/examples
	$(BIN)/cinegraph run Examples/Plugin/plugin-demo.conf --quiet

plugin: build
	$(MAKE) -C Examples/Plugin CINEGRAPH_BIN=$(BIN)

## Every test: graphs validate, examples build and run, then the whole suite (two shards at once,
## then the live suites alone; last, so its summary closes the output); docs/architecture.md, "Tests".
test: build validate examples test-install
	BIN=$(BIN) scripts/run-tests.sh --tier all

bench: setup
	$(SWIFT) build $(RELEASE_FLAGS) --product cinegraph
	$(SWIFT) build $(RELEASE_FLAGS) --product CineBench
	$(RELEASE_BIN)/CineBench
	@echo "\nfaces on real photos — cinegraph detect, learned model vs Haar cascades (Benchmarks/detector/photos.py)"
	$$(bash scripts/bench-venv.sh) Benchmarks/detector/photos.py $(RELEASE_BIN)/cinegraph
	@echo "\nthe face models against the reference — mediapipe's FaceDetection and FaceMesh (Benchmarks/detector/reference.py)"
	$$(bash scripts/bench-venv.sh) Benchmarks/detector/reference.py $(RELEASE_BIN)/cinegraph 2>/dev/null
	@echo "\neach model's output tensors against LiteRT's Python Interpreter on the same inputs (Benchmarks/detector/tensors.py)"
	$$(bash scripts/bench-venv.sh) Benchmarks/detector/tensors.py $(RELEASE_BIN)/CineBench 2>/dev/null

## The director (detections, tracking, focus) scored against the synthetic camera's ground truth.
score: release
	CINEGRAPH=$(RELEASE_BIN)/cinegraph scripts/score-director.sh

## Showing something: the showcase rule against the truth, five seeds, stereo then one lens (about 3 min).
showcase: release
	CINEGRAPH=$(RELEASE_BIN)/cinegraph scripts/score-showcase.sh
	CINEGRAPH=$(RELEASE_BIN)/cinegraph scripts/score-showcase.sh --mono

## Crowds: the director on synthetic takes with 4, 5 and 6 subjects, five seeds each (about 8 min).
crowds: release
	CINEGRAPH=$(RELEASE_BIN)/cinegraph scripts/score-crowds.sh

## People at a distance: the wide synthetic shot on three seeds and OpenCV's clip of people walking.
bodies: release
	CINEGRAPH=$(RELEASE_BIN)/cinegraph scripts/score-bodies.sh

## Regenerates docs/nodes.md from the node declarations.
docs: build
	$(BIN)/cinegraph nodes --markdown > docs/nodes.md
	python3 scripts/docs-tables.py $(BIN)/cinegraph

## Endurance: 10 minutes of the live cinematic graph; RSS at 1, 5, 10 min, leaked GStreamer objects.
soak: release
	scripts/soak.sh 10 graphs/cinematic.conf

## A side-by-side stereo sample clip for graphs/side-by-side-file.conf.
sample: release
	$(RELEASE_BIN)/cinegraph run graphs/synthetic-sbs.conf --quiet

clean:
	rm -rf .build out Examples/CustomNode/.build

## Installs like a Linux tool (docs/install.md): the release binary, models and LiteRT, example
## graphs, man pages, completions, licences, the virtual webcam's systemd user unit, under
## $(DESTDIR)$(PREFIX); `make uninstall` removes exactly that (its install-manifest).
PREFIX ?= /usr/local
DESTDIR ?=

install: release
	bash scripts/install.sh $(RELEASE_BIN) $(PREFIX) $(DESTDIR)

uninstall:
	bash scripts/install.sh --uninstall $(PREFIX) $(DESTDIR)

## The Debian 12 package out/cinegraph_<version>_amd64.deb (dpkg-deb; lintian; a dpkg -i check).
deb: release
	bash scripts/make-deb.sh $(RELEASE_BIN) out

## Installs into a temporary prefix and runs the installed tool from an empty folder (the test
## build's binary: `make release` would compile everything again for the static runtime).
test-install: build
	bash scripts/test-install.sh $(BIN)
