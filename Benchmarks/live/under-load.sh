#!/usr/bin/env bash
# The live cinematic graph under real load, as a person meets it: graphs/cinematic.conf at 1080p30
# with the viewfinder open in headless Chromium on the same machine (`browser`), a busy loop taking
# one full core (`hog`), or both at once (`both`), then what reached the asset against what the camera produced.
#
#   Benchmarks/live/under-load.sh [browser|hog|both|none] [SECONDS]     (default: browser 60)
#   GRAPH=graphs/interview.conf KEEP=out/loaded Benchmarks/live/under-load.sh browser 30
#   EXTRA="--set camera.size=1920x1080" …   (more arguments for `cinegraph run`)
#     (another graph with the same node names; KEEP copies the take and its log there)
#
# Prints the run's summary table (priority column, drops lost from the take / shed by previews)
# and `asset_frames=… camera_frames=… kept_pct=…`; with the browser, two seconds before the end,
# what the page measured (camera-to-screen latency p50/p99, viewer fps, the viewer rate cap) and
# the CPU the browser's processes used (seconds, and share of one core).
set -euo pipefail
cd "$(dirname "$0")/../.."
LOAD=${1:-browser}
SECONDS_=${2:-60}
BIN=${CINEGRAPH:-.build/release/cinegraph}
GRAPH=${GRAPH:-graphs/cinematic.conf}
OUT=$(mktemp -d /tmp/cinegraph-load-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null; rm -rf "$OUT"' EXIT
PORT=8093
"$BIN" run "$GRAPH" --duration "${SECONDS_}s" --quiet \
  --set viewfinder.port=$PORT --set asset.path="$OUT/take.cine.mkv" --set meta.path="$OUT/take.jsonl" \
  ${EXTRA:-} > "$OUT/run.log" 2>&1 &
RUN=$!
sleep 2
browser() {
  chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$OUT/profile" \
    --remote-debugging-port=0 "http://127.0.0.1:$PORT/" > "$OUT/chromium.log" 2>&1 &
}
case "$LOAD" in
  browser) browser ;;
  hog)  # a bounded busy loop taking one full core (no viewer: the viewfinder node's fps is reported)
    timeout "$((SECONDS_ + 5))" sh -c 'while :; do :; done' &
    ;;
  both)  # the busy loop and the browser: three cores' worth of demand on two
    timeout "$((SECONDS_ + 5))" sh -c 'while :; do :; done' &
    browser
    ;;
  none) ;;
  *) echo "load: browser, hog, both or none" >&2; exit 2 ;;
esac
if [ "$LOAD" != none ]; then
  sleep $((SECONDS_ - 4))
  curl -s "http://127.0.0.1:$PORT/api/state" > "$OUT/state.json" || true
  cpu=$(ps -eo times=,args= | awk -v p="$OUT/profile" 'index($0, p) { s += $1 } END { print s + 0 }')
fi
wait $RUN || true
cat "$OUT/run.log"
asset=$("$BIN" inspect "$OUT/take.cine.mkv" 2>/dev/null | head -1 | sed -E 's/.* ([0-9]+) frames.*/\1/')
camera=$(awk '$1 == "camera" { print $4 }' "$OUT/run.log")
if [ -s "${OUT}/state.json" ]; then
  python3 - "$OUT/state.json" "$cpu" "$SECONDS_" "$LOAD" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
cpu, secs = float(sys.argv[2]), float(sys.argv[3]) - 6
if s.get("screenLatencySamples", 0): print("viewer: fps=%.1f screen_latency_p50_ms=%.0f p99_ms=%.0f (page's part p50 %.0f ms) samples=%d fps_cap=%s load_level=%s"
      % (s.get("fps", 0), s.get("screenLatencyP50Ms", -1), s.get("screenLatencyP99Ms", -1), s.get("pageLatencyP50Ms", -1),
         s.get("screenLatencySamples", 0), s.get("viewerFpsCap", "?"), s.get("loadLevel", "?")))
if sys.argv[4] != "hog": print("browser: cpu_s=%.1f over %.0f s = %.0f %% of one core" % (cpu, secs, 100 * cpu / secs))
PY
fi
echo "load=$LOAD asset_frames=$asset camera_frames=$camera kept_pct=$(awk -v a="$asset" -v c="$camera" 'BEGIN { printf "%.2f", 100 * a / c }')"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$OUT/take.cine.mkv" "$OUT/take.jsonl" "$OUT/run.log" "$KEEP/"; fi
