#!/usr/bin/env bash
# Scores the showcase rule (something held up to the lens gets focus, and focus goes back when it
# is lowered) against the synthetic camera's ground truth: a 30 s talk scene whose nearest person
# raises a cup at seeded times (Benchmarks/director/showcase.conf), seeds 1–5 (SEEDS= to choose).
# `--mono` first scores the one-lens graph instead (Benchmarks/director/showcase-mono.conf: hands
# from the palm detector, disparity from apparent size). Extra arguments are `--set` overrides.
set -euo pipefail
conf=Benchmarks/director/showcase.conf out=showcase mono=
if [ "${1:-}" = --mono ]; then conf=Benchmarks/director/showcase-mono.conf out=showcase-mono mono=--mono; shift; fi
cd "$(dirname "$0")/.."
BIN=${CINEGRAPH:-$(swift build -c release --show-bin-path 2>/dev/null)/cinegraph}
mkdir -p out
rows=out/$out.jsonl
: > "$rows"
for seed in ${SEEDS:-1 2 3 4 5}; do
  "$BIN" run "$conf" --quiet --set camera.seed="$seed" "$@" \
    >/dev/null 2>"out/$out-run.log" || { cat "out/$out-run.log" >&2; exit 1; }
  echo "seed $seed:"
  python3 Benchmarks/director/showcase.py "out/$out-truth.jsonl" "out/$out-found.jsonl" $mono | sed 's/^/  /'
  python3 Benchmarks/director/showcase.py "out/$out-truth.jsonl" "out/$out-found.jsonl" $mono --json >> "$rows"
done
python3 - "$rows" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n = sum(r["showings"] for r in rows)
reached = sum(r["reached"] for r in rows)
returned = sum(r["returned"] for r in rows)
returnable = sum(r["returnable"] for r in rows)
print(f"all seeds: {n} showings; focus on the cup within 0.5 s: {reached} ({100 * reached / max(1, n):.0f} %); "
      f"back on the face within 0.7 s: {returned} of {returnable} ({100 * returned / max(1, returnable):.0f} %)")
PY
