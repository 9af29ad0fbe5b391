"""Scores the director of one take against the synthetic camera's ground truth.

truth.jsonl / found.jsonl: one JSON record per frame (the metadata node's lines). A true face
counts when it is at least 1 % of the frame wide and high and at least half of it is in view
(the synthetic camera gives the share in view as the face's confidence: the rest is cut off by
the frame's edge or hidden behind a nearer person). A found face matches the true face it
overlaps most, at IoU >= 0.3; one that matches only a face that does not count (mostly hidden)
is neither a hit nor a false positive, and neither is a found face reported as turned away
(`facing: away`, a tracked face that looked away) that lies on a person whose face does not count. Prints recall, precision,
face IDs per true person and crossing (the scene's walks repeat), ID switches, and the share of frames with a visible face whose focus
disparity is within 10 % of a true subject's. `--json` prints the same as one JSON object.
"""
import json
import sys


def faces(record):
    return [d for d in record.get("detections", []) if d["type"] == "humanFace"]


def box(d):
    b = d["bounds"]
    return b["x"], b["y"], b["width"], b["height"]


def iou(a, b):
    iw = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def inside(a, b):
    """The share of box a that lies inside box b."""
    iw = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return iw * ih / (a[2] * a[3]) if a[2] * a[3] > 0 else 0.0


def main(truth_path, found_path, as_json=False):
    truth = [json.loads(line) for line in open(truth_path)]
    found = [json.loads(line) for line in open(found_path)]
    tp = fn = fp = 0
    ids, last_id, switches = {}, {}, 0
    crossing, last_seen = {}, {}  # a person's walk through the frame: a new one after 5 s unseen
    visible = on_subject = 0
    for k, (t, f) in enumerate(zip(truth, found)):
        counted = [d["bounds"]["width"] > 0.01 and d["bounds"]["height"] > 0.01 and d.get("confidence", 1) >= 0.5
                   for d in faces(t)]
        true_faces = [d for d, c in zip(faces(t), counted) if c]
        hidden = [d for d, c in zip(faces(t), counted) if not c]
        seen = faces(f)
        used = set()
        for g in true_faces:
            group = g["groupID"]
            if k - last_seen.get(group, -10**9) > 150:
                crossing[group] = crossing.get(group, 0) + 1
            last_seen[group] = k
            best, best_iou = None, 0.3
            for j, d in enumerate(seen):  # j, not k: k is the frame
                if j not in used and iou(box(g), box(d)) > best_iou:
                    best, best_iou = j, iou(box(g), box(d))
            if best is None:
                fn += 1
                continue
            tp += 1
            used.add(best)
            person, got = (group, crossing[group]), seen[best]["id"]
            ids.setdefault(person, set()).add(got)
            if person in last_id and last_id[person] != got:
                switches += 1
            last_id[person] = got
        faceless = [d for d in t.get("detections", []) if d["type"] == "humanBody"
                    and not any(g["groupID"] == d["groupID"] for g in true_faces)]
        fp += sum(1 for j, d in enumerate(seen)
                  if j not in used and not any(iou(box(g), box(d)) >= 0.3 for g in hidden)
                  and not (d.get("facing") == "away" and any(inside(box(d), box(b)) >= 0.5 for b in faceless)))
        if true_faces:
            visible += 1
            focus = (f.get("focus") or {}).get("focusDisparity")
            subjects = [d.get("disparity") for d in t.get("detections", []) if d.get("disparity")]
            if focus is not None and any(abs(focus - s) <= 0.1 * s for s in subjects):
                on_subject += 1
    people = len(ids)
    if as_json:
        print(json.dumps({"frames": len(truth), "trueFaces": tp + fn, "recall": tp / max(1, tp + fn),
                          "precision": tp / max(1, tp + fp), "crossings": people,
                          "faceIDs": sum(len(v) for v in ids.values()), "switches": switches,
                          "visibleFrames": visible, "focusOnSubject": on_subject / max(1, visible)}))
        return
    print(f"frames {len(truth)}, true faces {tp + fn}")
    print(f"recall {100 * tp / max(1, tp + fn):.1f} %, precision {100 * tp / max(1, tp + fp):.1f} %")
    print(f"face IDs per person and crossing {sorted(len(v) for v in ids.values())} ({people} crossings), ID switches {switches}")
    print(f"focus on a true subject in {100 * on_subject / max(1, visible):.1f} % of {visible} frames with a visible face")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--json" in sys.argv[3:])
