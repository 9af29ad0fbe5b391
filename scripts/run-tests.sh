#!/usr/bin/env bash
# Runs the test suite from the optimised build (`make build`): `--tier unit` runs the unit suites
# (no GStreamer pipeline, no browser, no process: `make check`); `--tier all` runs every suite in
# two shards at once — one for the suites that mostly wait (processes, browser, live graphs in
# real time), one for the suites that compute — each shard's tests one after another, so a test
# shares the two cores with at most one other. When a shard fails, each failing test's issues are
# repeated at the end, so a run's last lines say what failed (CI shows only the tail).
# Extra arguments go to the test runner (for example `--filter DemoTests`).
set -uo pipefail
tier=all
if [ "${1:-}" = "--tier" ]; then tier=$2; shift 2; fi
bin=${BIN:?BIN must name the build folder (make test sets it)}
bundle="$bin/cinegraphPackageTests.xctest"
[ -x "$bundle" ] || { echo "no test bundle at $bundle: run 'make build'" >&2; exit 2; }
export CINEGRAPH_RELEASE_BIN="$bin/cinegraph"
mkdir -p .build/test-logs
rm -f .build/test-logs/*.log

# The suites that mostly wait: whole processes, the browser, live graphs paced in real time.
waiting='^(EndToEndTests|CineViewfinderTests)\.'
unit='^(CineMediaTests|CineGraphTests|CineVisionTests)\.'

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
        shards=(waiting computing)
        run_shard waiting --filter "$waiting" "$@" &
        run_shard computing --skip "$waiting" "$@" &
        wait ;;
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
cat .build/test-logs/*.log | sed -nE 's/^✔ Test (.*) passed after ([0-9.]+) seconds.*/\2 \1/p' | sort -rn | head -10
if [ "$status" -ne 0 ]; then
    echo
    echo "=== failures"
    grep -hE "recorded an issue|^✘ Test .* failed|Fatal error|crashed|signal code|exited with" .build/test-logs/*.log \
        | cut -c1-400 | head -30
fi
echo "=== tests: $((SECONDS - start)) s, tier $tier, exit $status"
exit "$status"
