#!/usr/bin/env python3
"""Scores bodies found against the truth, frame by frame (metadata JSON lines of each).

A truth body counts when it is whole inside the frame, at least --min-height pixels tall and
not more than 35 % behind a nearer person's box (the Caltech benchmark's "reasonable" people); a found body matches it at IoU >= 0.5 (one to one, best first). A found
body that matches no counted truth but lies half inside an uncounted one (cut by the frame's
edge, or smaller) is ignored, neither right nor wrong (the Caltech benchmark's ignore regions). Prints recall, precision, and the IDs
each walk was given (one per walk is the aim).

usage: score.py TRUTH.jsonl FOUND.jsonl [--width W --height H --min-height PX --json]
"""
import argparse, json, sys


def boxes(line, kind="humanBody"):
    return [(d["id"], d["bounds"]) for d in json.loads(line).get("detections", []) if d["type"] == kind]


def disparities(line, kind="humanBody"):
    return {d["id"]: d.get("disparity") or 0 for d in json.loads(line).get("detections", []) if d["type"] == kind}


def iou(a, b):
    x0, y0 = max(a["x"], b["x"]), max(a["y"], b["y"])
    x1 = min(a["x"] + a["width"], b["x"] + b["width"])
    y1 = min(a["y"] + a["height"], b["y"] + b["height"])
    inter = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    union = a["width"] * a["height"] + b["width"] * b["height"] - inter
    return inter / union if union > 0 else 0.0


def inside(a, b):
    """The share of a's area inside b."""
    x0, y0 = max(a["x"], b["x"]), max(a["y"], b["y"])
    x1 = min(a["x"] + a["width"], b["x"] + b["width"])
    y1 = min(a["y"] + a["height"], b["y"] + b["height"])
    area = a["width"] * a["height"]
    return max(0.0, x1 - x0) * max(0.0, y1 - y0) / area if area > 0 else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("found")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--min-height", type=float, default=48)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    truth = open(a.truth).read().splitlines()
    found = open(a.found).read().splitlines()
    n = min(len(truth), len(found))
    hits = misses = false = 0
    ids = {}  # walk -> {found id: frames}
    for t_line, f_line in zip(truth[:n], found[:n]):
        counted, ignored = [], []
        people, near = boxes(t_line), disparities(t_line)
        for tid, b in people:
            # The truth box is clipped to the frame; a figure cut by the edge is shorter or narrower.
            whole = b["x"] > 0.0005 and b["x"] + b["width"] < 0.9995 and b["y"] + b["height"] < 0.9995
            tall = b["height"] * a.height >= a.min_height
            hidden = max((inside(b, o) for oid, o in people if near[oid] > near[tid]), default=0) > 0.35
            (counted if whole and tall and not hidden else ignored).append((tid, b))
        dets = boxes(f_line)
        pairs = sorted(((iou(t, d), i, j) for i, (_, t) in enumerate(counted) for j, (_, d) in enumerate(dets)), reverse=True)
        used_t, used_d = set(), set()
        for v, i, j in pairs:
            if v < 0.5 or i in used_t or j in used_d:
                continue
            used_t.add(i)
            used_d.add(j)
            walk = counted[i][0]
            ids.setdefault(walk, {})
            ids[walk][dets[j][0]] = ids[walk].get(dets[j][0], 0) + 1
        hits += len(used_t)
        misses += len(counted) - len(used_t)
        for j, (_, d) in enumerate(dets):
            if j in used_d or any(inside(d, t) >= 0.5 for _, t in ignored):
                continue
            false += 1
    recall = hits / max(1, hits + misses)
    precision = hits / max(1, hits + false)
    per_walk = {w: len(v) for w, v in ids.items()}
    result = {"frames": n, "bodies": hits + misses, "recall": recall, "precision": precision, "false": false,
              "walks": len(per_walk), "ids": sum(per_walk.values()), "most_ids_per_walk": max(per_walk.values(), default=0)}
    if a.json:
        print(json.dumps(result))
    else:
        print(f"{n} frames, {hits + misses} bodies: recall {100 * recall:.1f} %, precision {100 * precision:.1f} % "
              f"({false} false), {result['ids']} IDs for {result['walks']} walks (at most {result['most_ids_per_walk']} for one)")


if __name__ == "__main__":
    sys.exit(main())
