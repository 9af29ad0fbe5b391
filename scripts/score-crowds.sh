#!/usr/bin/env bash
# Scores the director on crowds: synthetic takes with 4, 5 and 6 subjects, five seeds each, through
# the shipped defaults (Benchmarks/director/director.conf), and prints recall, precision, face IDs
# against walks and focus on a true subject per take, with the min and median per subject count.
# SUBJECTS="4 5 6" SEEDS="1 2 3 5 7" to choose; extra arguments are `--set` overrides.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CINEGRAPH:-$(swift build -c release --show-bin-path 2>/dev/null)/cinegraph}
mkdir -p out
rows=out/crowds.jsonl
: > "$rows"
for n in ${SUBJECTS:-4 5 6}; do
  for seed in ${SEEDS:-1 2 3 5 7}; do
    "$BIN" run Benchmarks/director/director.conf --quiet --set camera.subjects="$n" --set camera.seed="$seed" "$@" \
      >/dev/null 2>out/crowds-run.log || { cat out/crowds-run.log >&2; exit 1; }
    python3 Benchmarks/director/score.py out/director-truth.jsonl out/director-found.jsonl --json |
      python3 -c "import json,sys; r=json.load(sys.stdin); r.update(subjects=$n, seed=$seed); print(json.dumps(r))" >> "$rows"
    python3 -c "import json,sys; r=json.loads(open('$rows').readlines()[-1]); print(f\"{r['subjects']} subjects, seed {r['seed']}: recall {100*r['recall']:.1f} %, precision {100*r['precision']:.1f} %, face IDs {r['faceIDs']} for {r['crossings']} walks, focus on a subject {100*r['focusOnSubject']:.1f} %\")"
  done
done
python3 Benchmarks/director/crowds.py "$rows"
