#!/usr/bin/env bash
# Endurance: runs a live graph for MINUTES (default 10) in release, samples its resident memory
# every 10 s, and reports RSS at 1, 5 and 10 minutes (and the end), queue growth from the run's
# summary, and the GStreamer objects created and destroyed over the last 40 s (GStreamer's leaks
# tracer, with checkpoints).
#   scripts/soak.sh [MINUTES] [GRAPH] [--set ...]     (make soak runs the default: 10 min of graphs/cinematic.conf)
# Fails (exit 1) when memory grows by more than 10 % + 32 MB after the first minute, or when
# more GStreamer objects were created than destroyed near the end (beyond 64 in flight).
set -euo pipefail
minutes=${1:-10}; shift || true
graph=${1:-graphs/cinematic.conf}; shift || true
bin=.build/release/cinegraph
[ -x "$bin" ] || { echo "build first: make release" >&2; exit 2; }
out=$(mktemp -d /tmp/cinegraph-soak.XXXXXX)
log="$out/run.log"; csv="$out/rss.csv"
echo "soak: $graph for $minutes min, logs in $out"
# GStreamer's leaks tracer with checkpoints (GST_LEAKS_TRACER_SIG): SIGUSR2 one minute before the
# end starts one, SIGUSR2 20 s before the end lists the objects created and destroyed since. In a
# steady state they balance; a leak shows as objects created and never destroyed. The window is
# short on purpose: between checkpoints the tracer keeps a record of every object created (about
# 80 MB over 9 minutes of 1080p), and listing them stops every GStreamer thread while it logs
# (≈ 6 s for 700,000 records). Memory growth is judged on the sample before the first checkpoint.
GST_LEAKS_TRACER_SIG=1 GST_TRACERS=leaks GST_DEBUG="GST_TRACER:7" "$bin" run "$graph" --duration "${minutes}m" --quiet \
    --set "asset.path=$out/soak.cine.mkv" "$@" >"$log" 2>&1 &
pid=$!
echo "seconds,rss_kb" >"$csv"
start=$(date +%s)
checkpoint=0; mark=""; before=""
while kill -0 "$pid" 2>/dev/null; do
    elapsed=$(( $(date +%s) - start ))
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$elapsed,$rss" >>"$csv"
    if [ "$checkpoint" -eq 0 ] && [ "$elapsed" -ge $(( minutes * 60 - 60 )) ] && [ "$minutes" -ge 2 ]; then
        before=$rss; kill -USR2 "$pid" 2>/dev/null || true; checkpoint=1
    elif [ "$checkpoint" -eq 1 ] && [ "$elapsed" -ge $(( minutes * 60 - 20 )) ]; then
        mark=$(wc -l <"$log"); kill -USR2 "$pid" 2>/dev/null || true; checkpoint=2
    fi
    sleep 5
done
status=0; wait "$pid" || status=$?
# RSS in MB at the first sample at or after T seconds (samples are 5 s apart and drift, so from T − 4: the
# 10-minute mark is the last sample of a 10-minute run), or "-" when the run was shorter.
at() { awk -F, -v t="$1" 'NR > 1 && $1 >= t - 4 { printf "%d", $2 / 1024; found = 1; exit } END { if (!found) print "-" }' "$csv"; }
first=$(awk -F, 'NR > 1 && $1 >= 60 { print $2; exit }' "$csv"); last=${before:-$(tail -1 "$csv" | cut -d, -f2)}
printf 'RSS: 1 min %s MB, 5 min %s MB, 10 min %s MB, end %s MB (%s samples in %s)\n' \
    "$(at 60)" "$(at 300)" "$(at 600)" "$(( ${last:-0} / 1024 ))" "$(( $(wc -l <"$csv") - 1 ))" "$csv"
grep -A30 "^Summary of" "$log" || true
# The second checkpoint's records (the tracer's format description, printed at start-up, has
# "%s" where they have a type name).
leaks=0
if [ -n "$mark" ]; then
    added=$(tail -n +"$(( mark + 1 ))" "$log" | grep -cE 'object-added, type-name=\(string\)[A-Za-z]' || true)
    removed=$(tail -n +"$(( mark + 1 ))" "$log" | grep -cE 'object-removed, type-name=\(string\)[A-Za-z]' || true)
    leaks=$(( added > removed + 64 ? added - removed : 0 ))
    echo "GStreamer objects in the last 40 s: $added created, $removed destroyed (net $(( added - removed )))"
    echo "RSS before the first checkpoint: $(( before / 1024 )) MB (the growth check uses it)"
    tail -n +"$(( mark + 1 ))" "$log" | grep -oE 'object-(added|removed), type-name=\(string\)[A-Za-z]+' | sort | uniq -c
else
    echo "GStreamer objects: no checkpoints (the run was shorter than 2 minutes)"
fi
fail=0
[ "$status" -eq 0 ] || { echo "the run failed (exit $status): see $log"; fail=1; }
if [ -n "$first" ] && [ "$last" -gt $(( first * 11 / 10 + 32768 )) ]; then
    echo "memory grew from $(( first / 1024 )) MB to $(( last / 1024 )) MB"; fail=1
fi
[ "$leaks" -eq 0 ] || { echo "GStreamer objects grew by $leaks"; fail=1; }
rm -f "$out/soak.cine.mkv"  # ~2 GB for 10 min of 1080p; the log and RSS samples stay
exit $fail
