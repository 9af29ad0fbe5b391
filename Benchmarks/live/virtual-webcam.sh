#!/usr/bin/env bash
# The one-lens virtual webcam as a person runs it: graphs/virtual-webcam.conf at 1280x720 for
# SECONDS (default 60) — camera → matte + detector → mono-depth → focus → bokeh → virtual-camera —
# with a fakesink in place of v4l2sink (no loopback device here), timed as a whole process.
#   Benchmarks/live/virtual-webcam.sh [SECONDS]
# Prints the run's summary and `camera_frames=… sent_frames=… dropped=… cpu_cores=…`.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_=${1:-60}
BIN=${CINEGRAPH:-.build/release/cinegraph}
LOG=$(mktemp /tmp/cinegraph-vw-XXXXXX)
trap 'rm -f "$LOG"' EXIT
/usr/bin/time -f "cpu_seconds=%U+%S wall_seconds=%e" "$BIN" run graphs/virtual-webcam.conf --duration "${SECONDS_}s" \
  --set call.output=fakesink --quiet > "$LOG" 2>&1
cat "$LOG"
camera=$(awk '$1 == "camera" { print $4 }' "$LOG")
sent=$(awk '$1 == "call" { print $4 }' "$LOG")
dropped=$(sed -nE 's/.* ([0-9]+) packets dropped on live edges.*/\1/p' "$LOG")
cpu=$(sed -nE 's/cpu_seconds=([0-9.]+)\+([0-9.]+) wall_seconds=([0-9.]+)/\1 \2 \3/p' "$LOG")
echo "camera_frames=$camera sent_frames=$sent dropped=$dropped cpu_cores=$(echo "$cpu" | awk '{ printf "%.2f", ($1 + $2) / $3 }')"
