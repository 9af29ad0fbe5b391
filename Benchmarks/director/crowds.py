"""Tabulates scripts/score-crowds.sh's takes: one row per take, then per subject count the min and
median of recall, precision and focus on a true subject, and the worst face IDs over walks + 1."""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
print("| subjects | seed | recall | precision | face IDs / walks | focus on a true subject |")
print("|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['subjects']} | {r['seed']} | {100 * r['recall']:.1f} % | {100 * r['precision']:.1f} % "
          f"| {r['faceIDs']} / {r['crossings']} | {100 * r['focusOnSubject']:.1f} % |")
print()
print("| subjects | recall min / median | precision min / median | IDs ≤ walks + 1 | focus min / median |")
print("|---|---|---|---|---|")
for n in sorted({r["subjects"] for r in rows}):
    g = [r for r in rows if r["subjects"] == n]
    def mm(key):
        v = [100 * r[key] for r in g]
        return f"{min(v):.1f} / {statistics.median(v):.1f} %"
    ok = sum(1 for r in g if r["faceIDs"] <= r["crossings"] + 1)
    print(f"| {n} | {mm('recall')} | {mm('precision')} | {ok} of {len(g)} takes | {mm('focusOnSubject')} |")
