#!/usr/bin/env bash
# Runs the test suite from the optimised build (`make build`).
#   --tier unit  the unit suites (no GStreamer pipeline, no browser, no process): `make check`.
#   --tier all   every suite, in two phases (`make test`):
#     1. "computing" (the module suites) and "offline" (whole processes and the browser on
#        offline work: files, renders, the editor) at once, one test after another in each;
#     2. "live": the suites that run a live graph in real time and count the frames it kept,
#        alone on the machine, as a user's take would be.
# When a shard fails, each failing test's issues are repeated at the end, so a run's last lines
# say what failed (CI shows only the tail). Extra arguments go to the test runner (for example
# `--filter DemoTests`).
set -uo pipefail
tier=all
if [ "${1:-}" = "--tier" ]; then tier=$2; shift 2; fi
bin=${BIN:?BIN must name the build folder (make test sets it)}
bundle="$bin/cinegraphPackageTests.xctest"
[ -x "$bundle" ] || { echo "no test bundle at $bundle: run 'make build'" >&2; exit 2; }
export CINEGRAPH_RELEASE_BIN="$bin/cinegraph"
mkdir -p .build/test-logs
rm -f .build/test-logs/*

# Live graphs in real time, each asserting what the take kept: never beside a busy shard.
live='^(EndToEndTests\.(MonoWebcamTests|VirtualWebcamTests|SourceLostTests|CinematicGraphTests|DemoTests|SRTTests|CLITests)|CineViewfinderTests\.(BrowserTests|TakeUnderViewerFaultsTests|RecordStartTests))'
# Whole processes and the browser on offline work.
processes='^(EndToEndTests|CineViewfinderTests|CineEditorTests)\.'
unit='^(CineMediaTests|CineInferenceTests|CineGraphTests|CineVisionTests)\.'

run_shard() {  # name, then runner arguments
    local name=$1; shift
    local log=.build/test-logs/$name.log start=$SECONDS
    "$bundle" --testing-library swift-testing --no-parallel "$@" >"$log" 2>&1
    local status=$?
    echo "$status $((SECONDS - start))" >".build/test-logs/$name.status"
    return $status
}

start=$SECONDS
case $tier in
    unit) shards=(unit) ; run_shard unit --filter "$unit" "$@" ;;
    all)
        shards=(computing offline live)
        run_shard computing --skip "$processes" "$@" &
        run_shard offline --filter "$processes" --skip "$live" "$@" &
        wait
        run_shard live --filter "$live" "$@" ;;
    *) echo "unknown tier '$tier' (unit, all)" >&2; exit 2 ;;
esac

status=0
for s in "${shards[@]}"; do
    read -r code secs <".build/test-logs/$s.status"
    echo "=== shard '$s': exit $code after ${secs} s (log: .build/test-logs/$s.log)"
    grep -E "^(✔|✘) Test run with|^✘ Test .* failed" ".build/test-logs/$s.log" | cut -c1-300 | tail -5
    [ "$code" -ne 0 ] && status=1
done
# The slowest tests of the run, for the next person who wants it faster.
echo "=== slowest tests"
cat .build/test-logs/*.log | grep -v "Test run with" | sed -nE 's/^✔ Test (.*) passed after ([0-9.]+) seconds.*/\2 \1/p' | sort -rn | head -10
if [ "$status" -ne 0 ]; then
    echo
    echo "=== failures"
    grep -hE "recorded an issue|^✘ Test .* failed|Fatal error|crashed|signal code|exited with" .build/test-logs/*.log \
        | cut -c1-400 | head -30
fi
echo "=== tests: $((SECONDS - start)) s, tier $tier, exit $status"
exit "$status"
