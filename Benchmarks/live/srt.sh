#!/usr/bin/env bash
# A remote stereo camera over SRT as two boxes run it, here two processes over loopback on the same
# two cores: graphs/srt-receive.conf (the render box: receives, splits the views, records the left
# one) and graphs/srt-send.conf (the camera box: the synthetic stereo camera packed side by side,
# H.264 over SRT) for SECONDS (default 60) at SIZE a view (default 960x1080: a 1920x1080 stream).
# Then the received movie is read back: frames sent, received, lost, and every timestamp checked
# against the sender's 1/30 s grid.
#   Benchmarks/live/srt.sh [SECONDS] [SIZE]
# Prints both runs' summaries and `sent=… received=… lost=… stamps_off=… receiver_cpu=… sender_cpu=…`.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_=${1:-60}
SIZE=${2:-960x1080}
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
# Every received frame's time, from the movie on disk.
python3 - "$DIR/remote.mkv" "$sent" "$camera" "$(cores "$DIR/rx.log")" "$(cores "$DIR/tx.log")" <<'PY'
import sys, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
path, sent, camera, rx_cpu, tx_cpu = sys.argv[1:]
p = Gst.parse_launch(f'filesrc location="{path}" ! matroskademux ! fakesink name=s sync=false')
stamps = []
p.get_by_name("s").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, lambda pad, info: (stamps.append(info.get_buffer().pts), Gst.PadProbeReturn.OK)[1])
p.set_state(Gst.State.PLAYING)
p.get_bus().timed_pop_filtered(600 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
p.set_state(Gst.State.NULL)
stamps.sort()
off = sum(1 for k, t in enumerate(stamps) if abs(t / 1e9 - k / 30) > 0.002)
print(f"camera_frames={camera} sent={sent} received={len(stamps)} lost={int(sent) - len(stamps)} "
      f"stamps_off={off} last_stamp={stamps[-1] / 1e9 if stamps else 0:.3f} receiver_cpu={rx_cpu} sender_cpu={tx_cpu}")
PY
