#!/usr/bin/env bash
# Endurance: runs a live graph for MINUTES (default 10) in release, samples its resident memory
# every 10 s, and reports RSS at 1, 5 and 10 minutes (and the end), queue growth from the run's
# summary, and the GStreamer objects still alive at exit (GStreamer's leaks tracer).
#   scripts/soak.sh [MINUTES] [GRAPH] [--set ...]     (make soak runs the default: 10 min of graphs/cinematic.conf)
# Fails (exit 1) when memory grows by more than 10 % + 32 MB after the first minute, or when
# GStreamer reports leaked objects.
set -euo pipefail
minutes=${1:-10}; shift || true
graph=${1:-graphs/cinematic.conf}; shift || true
bin=.build/release/cinegraph
[ -x "$bin" ] || { echo "build first: make release" >&2; exit 2; }
out=$(mktemp -d /tmp/cinegraph-soak.XXXXXX)
log="$out/run.log"; csv="$out/rss.csv"
echo "soak: $graph for $minutes min, logs in $out"
GST_TRACERS=leaks GST_DEBUG="GST_TRACER:7" "$bin" run "$graph" --duration "${minutes}m" --quiet \
    --set "asset.path=$out/soak.cine.mkv" "$@" >"$log" 2>&1 &
pid=$!
echo "seconds,rss_kb" >"$csv"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(( $(date +%s) - start )),$rss" >>"$csv"
    sleep 10
done
status=0; wait "$pid" || status=$?
at() { awk -F, -v t="$1" 'NR > 1 && $1 >= t { print $2; exit }' "$csv"; }
first=$(at 60); last=$(tail -1 "$csv" | cut -d, -f2)
printf 'RSS: 1 min %s MB, 5 min %s MB, 10 min %s MB, end %s MB (%s samples in %s)\n' \
    "$(( ${first:-0} / 1024 ))" "$(( $(at 300 || echo 0) / 1024 ))" "$(( $(at 600 || echo 0) / 1024 ))" \
    "$(( ${last:-0} / 1024 ))" "$(( $(wc -l <"$csv") - 1 ))" "$csv"
grep -A30 "^Summary of" "$log" || true
leaks=$(grep -c "object-alive" "$log" || true)
echo "GStreamer objects alive at exit: $leaks"
fail=0
[ "$status" -eq 0 ] || { echo "the run failed (exit $status): see $log"; fail=1; }
if [ -n "$first" ] && [ "$last" -gt $(( first * 11 / 10 + 32768 )) ]; then
    echo "memory grew from $(( first / 1024 )) MB to $(( last / 1024 )) MB"; fail=1
fi
[ "$leaks" -eq 0 ] || { grep "object-alive" "$log" | head -20; fail=1; }
exit $fail
