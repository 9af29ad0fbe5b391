#!/usr/bin/env bash
# People at a distance: the wide synthetic shot (Benchmarks/bodies/bodies.conf) on several seeds,
# each scored against the camera's truth (Benchmarks/bodies/score.py). Prints one line a seed.
#   CINEGRAPH=path/to/cinegraph scripts/score-bodies.sh [seeds…]   (default 1 2 3)
# then the real clip.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CINEGRAPH:-.build/release/cinegraph}
SEEDS=${*:-1 2 3}
for seed in $SEEDS; do
  "$BIN" run Benchmarks/bodies/bodies.conf --quiet --set camera.seed="$seed" \
    --set truth.path="out/bodies-truth-$seed.jsonl" --set found.path="out/bodies-found-$seed.jsonl" >/dev/null 2>&1
  echo "seed $seed: $(python3 Benchmarks/bodies/score.py "out/bodies-truth-$seed.jsonl" "out/bodies-found-$seed.jsonl")"
done
# The real clip (OpenCV's vtest.avi, people marked by hand on eight frames), timed as a whole process.
CLIP=.testdata/opencv-people/vtest.avi
[ -f "$CLIP" ] || bash scripts/fetch-testdata.sh >/dev/null
start=$(date +%s.%N)
"$BIN" detect "$CLIP" --types humanBody --quiet > out/bodies-vtest.jsonl 2>/dev/null
end=$(date +%s.%N)
echo "vtest.avi: $(python3 Benchmarks/bodies/real.py Benchmarks/bodies/vtest-truth.json out/bodies-vtest.jsonl)," \
  "$(python3 -c "print(f'{($end - $start) / 795 * 1000:.0f} ms a frame (whole process, 795 frames, detection on every frame)')")"
