# cinegraph — build, demo, test, bench. `make demo` and `make test` do all set-up on a fresh
# Debian 12 machine (apt packages through scripts/setup.sh).
SWIFT ?= swift
# Release builds target the machine's vector unit: AVX-512 with vector popcount (the stereo
# matcher's census costs) where present, else AVX2 (2-3x on pixel loops); `make ARCH=` builds
# for baseline x86-64.
ARCH ?= $(shell if grep -qw avx512_vpopcntdq /proc/cpuinfo 2>/dev/null && grep -qw avx512bw /proc/cpuinfo; \
	then echo "-Xswiftc -target-cpu -Xswiftc icelake-server"; \
	elif grep -qw avx2 /proc/cpuinfo 2>/dev/null; then echo "-Xswiftc -target-cpu -Xswiftc haswell"; fi)
# The release binary links the Swift runtime and Foundation in (--static-swift-stdlib): a tool's
# process starts in ~5 ms instead of ~30 (docs/architecture.md). Plugins need the shared runtime:
# build cinegraph for them with plain `swift build` (the debug build `make examples` uses).
RELEASE_FLAGS = -c release --static-swift-stdlib $(ARCH)
RELEASE_BIN = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path 2>/dev/null)
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)

.PHONY: setup release demo build test validate examples plugin bench score docs sample soak clean

setup:
	@bash scripts/setup.sh

release: setup
	$(SWIFT) build $(RELEASE_FLAGS) --product cinegraph

## The cinematic demo: a synthetic take recorded as an asset with automatic focus, rendered with
## bokeh to out/demo-*.mp4, its focus plot and a contact sheet (docs/demo.md).
demo: release
	$(RELEASE_BIN)/cinegraph demo

build: setup
	$(SWIFT) build --build-tests

validate: build
	$(DEBUG_BIN)/cinegraph validate graphs/*.conf
	python3 scripts/docs-tables.py $(DEBUG_BIN)/cinegraph --check

## The embedding examples: a package that defines and runs a custom node, and a plugin.
examples: build plugin
	cd Examples/CustomNode && $(SWIFT) build && $(SWIFT) run timecode-demo ../../out/examples
	$(DEBUG_BIN)/cinegraph run Examples/Plugin/plugin-demo.conf --quiet

plugin: build
	$(MAKE) -C Examples/Plugin CINEGRAPH_BIN=$(DEBUG_BIN)

## Every test: graphs validate, examples build and run, then the test suite (last, so its
## summary closes the output). The demo's tests run the release binary, as `make demo` does.
test: build validate examples release
	CINEGRAPH_RELEASE_BIN=$(RELEASE_BIN)/cinegraph SWIFT="$(SWIFT)" scripts/run-tests.sh

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

## Regenerates docs/nodes.md from the node declarations.
docs: build
	$(DEBUG_BIN)/cinegraph nodes --markdown > docs/nodes.md
	python3 scripts/docs-tables.py $(DEBUG_BIN)/cinegraph

## Endurance: 10 minutes of the live cinematic graph; RSS at 1, 5, 10 min, leaked GStreamer objects.
soak: release
	scripts/soak.sh 10 graphs/cinematic.conf

## A side-by-side stereo sample clip for graphs/side-by-side-file.conf.
sample: release
	$(RELEASE_BIN)/cinegraph run graphs/synthetic-sbs.conf --quiet

clean:
	rm -rf .build out Examples/CustomNode/.build
