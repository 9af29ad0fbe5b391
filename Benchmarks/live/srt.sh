#!/usr/bin/env bash
# A remote stereo camera over SRT as two boxes run it, here two processes over loopback on the same
# two cores: graphs/srt-receive.conf (the render box: receives, splits the views, records the left
# one) and graphs/srt-send.conf (the camera box: the synthetic stereo camera packed side by side,
# H.264 over SRT) for SECONDS (default 60) at SIZE a view (default 1920x1080: a 3840x1080 stream).
# Then the received movie is read back: frames sent, received, lost, and every timestamp checked
# against the sender's 1/30 s grid.
#   Benchmarks/live/srt.sh [SECONDS] [SIZE]
# Prints both runs' summaries and `sent=… received=… lost=… stamps_off=… receiver_cpu=… sender_cpu=…`.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_=${1:-60}
SIZE=${2:-1920x1080}
BIN=${CINEGRAPH:-.build/release/cinegraph}
PORT=$((21000 + $$ % 9000))
DIR=$(mktemp -d /tmp/cinegraph-srt-XXXXXX)
trap 'kill $RX 2>/dev/null || true; rm -rf "$DIR"' EXIT
/usr/bin/time -f "cpu_seconds=%U+%S wall_seconds=%e" "$BIN" run graphs/srt-receive.conf \
  --set "remote.description=srtsrc uri=\"srt://:$PORT?mode=listener\" latency=200 ! tsdemux ignore-pcr=true ! h264parse ! avdec_h264" \
  --set "movie.path=$DIR/remote.mkv" > "$DIR/rx.log" 2>&1 &
RX=$!
for _ in $(seq 100); do grep -qi ":$(printf %04X $PORT) " /proc/net/udp && break; sleep 0.1; done
/usr/bin/time -f "cpu_seconds=%U+%S wall_seconds=%e" "$BIN" run graphs/srt-send.conf --duration "${SECONDS_}s" \
  --set "camera.size=$SIZE" --set "camera.duration=${SECONDS_}s" \
  --set "send.description=x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 bitrate=16000 ! video/x-h264,profile=high ! mpegtsmux ! srtsink uri=\"srt://127.0.0.1:$PORT?mode=caller\" latency=200" \
  > "$DIR/tx.log" 2>&1 || { cat "$DIR/tx.log"; exit 1; }
wait $RX || true
echo "--- sender (camera box)"; cat "$DIR/tx.log"
echo "--- receiver (render box)"; cat "$DIR/rx.log"
sent=$(awk '$1 == "send" { print $4 }' "$DIR/tx.log")
camera=$(awk '$1 == "camera" { print $4 }' "$DIR/tx.log")
cores() { sed -nE 's/cpu_seconds=([0-9.]+)\+([0-9.]+) wall_seconds=([0-9.]+)/\1 \2 \3/p' "$1" | awk '{ printf "%.2f", ($1 + $2) / $3 }'; }
# Every received frame's time, from the movie on disk (Matroska keeps milliseconds).
gst-launch-1.0 -v filesrc location="$DIR/remote.mkv" ! matroskademux ! identity silent=false ! fakesink sync=false 2>&1 \
  | grep -o "pts: [0-9:.]*" | awk -F'[ :]' '{ print ($3 * 3600 + $4 * 60 + $5) }' | sort -g > "$DIR/stamps"
received=$(wc -l < "$DIR/stamps")
off=$(awk '{ d = $1 - (NR - 1) / 30; if (d < 0) d = -d; if (d > 0.001) n++ } END { print n + 0 }' "$DIR/stamps")
last=$(tail -1 "$DIR/stamps")
echo "camera_frames=$camera sent=$sent received=$received lost=$((sent - received)) stamps_off=$off last_stamp=$last" \
  "receiver_cpu=$(cores "$DIR/rx.log") sender_cpu=$(cores "$DIR/tx.log")"
