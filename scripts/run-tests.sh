#!/usr/bin/env bash
# Runs the test suite serially and, when it fails, repeats each failing test's issues at the end
# of the output, so a run's last lines say what failed (CI shows only the tail).
set -uo pipefail
log=.build/test.log
mkdir -p .build
${SWIFT:-swift} test --skip-build --no-parallel "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "=== failures (full log: $log) ==="
    grep -E "recorded an issue|^✘ Test .* failed|Fatal error|crashed|signal code|exited with" "$log" | cut -c1-400 | head -20
fi
exit "$status"
