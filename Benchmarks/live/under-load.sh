#!/usr/bin/env bash
# The live cinematic graph under real load, as a person meets it: graphs/cinematic.conf at 1080p30
# with the viewfinder open in headless Chromium on the same machine (or with a CPU hog taking one
# full core), then what reached the asset against what the camera produced.
#
#   Benchmarks/live/under-load.sh [browser|hog|none] [SECONDS]     (default: browser 60)
#
# Prints the run's summary table (priority column, drops lost from the take / shed by previews)
# and `asset_frames=… camera_frames=… kept_pct=…`.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOAD=${1:-browser}
SECONDS_=${2:-60}
BIN=${CINEGRAPH:-.build/release/cinegraph}
OUT=$(mktemp -d /tmp/cinegraph-load-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT
PORT=8093
"$BIN" run graphs/cinematic.conf --duration "${SECONDS_}s" --quiet \
  --set viewfinder.port=$PORT --set asset.path="$OUT/take.cine.mkv" --set meta.path="$OUT/take.jsonl" \
  > "$OUT/run.log" 2>&1 &
RUN=$!
sleep 2
case "$LOAD" in
  browser)
    chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$OUT/profile" \
      --remote-debugging-port=0 "http://127.0.0.1:$PORT/" > "$OUT/chromium.log" 2>&1 &
    ;;
  hog)
    timeout "$((SECONDS_ + 5))" sh -c 'while :; do :; done' &
    ;;
  none) ;;
  *) echo "load: browser, hog or none" >&2; exit 2 ;;
esac
wait $RUN || true
cat "$OUT/run.log"
asset=$("$BIN" inspect "$OUT/take.cine.mkv" 2>/dev/null | head -1 | sed -E 's/.* ([0-9]+) frames.*/\1/')
camera=$(awk '$1 == "camera" { print $4 }' "$OUT/run.log")
echo "load=$LOAD asset_frames=$asset camera_frames=$camera kept_pct=$(awk -v a="$asset" -v c="$camera" 'BEGIN { printf "%.2f", 100 * a / c }')"
