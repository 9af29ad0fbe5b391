#!/usr/bin/env bash
# Scores the director (detections, tracking, focus choices) against the synthetic camera's ground
# truth: a 40 s seeded take through the shipped defaults. Extra arguments are `--set` overrides,
# e.g. scripts/score-director.sh --set faces.model=haar --set camera.seed=7
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CINEGRAPH:-$(swift build -c release --show-bin-path 2>/dev/null)/cinegraph}
mkdir -p out
"$BIN" run Benchmarks/director/director.conf --quiet "$@" >/dev/null
python3 Benchmarks/director/score.py out/director-truth.jsonl out/director-found.jsonl
