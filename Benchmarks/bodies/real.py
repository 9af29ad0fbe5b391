#!/usr/bin/env python3
"""Scores bodies found in a real clip against people marked by hand (vtest-truth.json).

usage: real.py TRUTH.json FOUND.jsonl [--width 768 --height 576]
FOUND.jsonl is `cinegraph detect CLIP --types humanBody` output (one metadata line a frame).
A found body matches a marked person at IoU >= 0.5 (one to one); one lying half inside an
'ignore' box is neither right nor wrong; the rest are false.
"""
import argparse, json, os, sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import iou as box_iou, inside as box_inside  # noqa: E402  (the synthetic bench's rules)


def box(c):
    """A [x0, y0, x1, y1] box as score.py's rectangles."""
    return {"x": c[0], "y": c[1], "width": c[2] - c[0], "height": c[3] - c[1]}


def iou(a, b):
    return box_iou(box(a), box(b))


def inside(a, b):
    return box_inside(box(a), box(b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("found")
    ap.add_argument("--width", type=int, default=768)
    ap.add_argument("--height", type=int, default=576)
    a = ap.parse_args()
    truth = json.load(open(a.truth))["frames"]
    found = {}
    for line in open(a.found):
        d = json.loads(line)
        found[d["frame"]] = [
            (b["x"] * a.width, b["y"] * a.height, (b["x"] + b["width"]) * a.width, (b["y"] + b["height"]) * a.height)
            for b in (o["bounds"] for o in d["detections"] if o["type"] == "humanBody")]
    hits = misses = false = 0
    for frame, t in truth.items():
        dets = found.get(int(frame), [])
        pairs = sorted(((iou(p, q), i, j) for i, p in enumerate(t["people"]) for j, q in enumerate(dets)), reverse=True)
        used_p, used_d = set(), set()
        for v, i, j in pairs:
            if v >= 0.5 and i not in used_p and j not in used_d:
                used_p.add(i)
                used_d.add(j)
        hits += len(used_p)
        misses += len(t["people"]) - len(used_p)
        false += sum(1 for j, q in enumerate(dets) if j not in used_d and not any(inside(q, g) >= 0.5 for g in t["ignore"]))
    print(f"{len(truth)} frames, {hits + misses} people: recall {100 * hits / max(1, hits + misses):.1f} %, "
          f"precision {100 * hits / max(1, hits + false):.1f} % ({false} false)")


if __name__ == "__main__":
    sys.exit(main())
