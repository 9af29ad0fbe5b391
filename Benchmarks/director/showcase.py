"""Scores the showcase rule of one take against the synthetic camera's ground truth.

truth.jsonl / found.jsonl: one JSON record per frame (the metadata node's lines). The cup is the
truth's salientObject (ID 101), its holder the face with ID 1. A showing is a run of frames in
which the cup's box overlaps the holder's face box and the cup is at least 20 % nearer (its
disparity 1.2 times the face's): it has passed in front of the face. Focus has reached the cup
when the focus disparity is within 10 % of the cup's, and is back when it is within 10 % of the
face's. Prints, per showing, how long after the cup passed in front of the face focus reached
it and how long after it was lowered (the run's end) focus was back, and the share of showings
within 0.5 s and 0.7 s. `--json` prints the totals as one JSON object.

`--mono` scores a one-lens take, whose disparities come from apparent sizes and so are not the
truth's: focus has reached the cup when it is within 10 % of the disparity of the shown object the
focus node reported over the cup's box, and is back when it is within 10 % of the disparity of
the face reported over the holder's face box.
"""
import json
import sys


def box(d):
    b = d["bounds"]
    return b["x"], b["y"], b["width"], b["height"]


def overlaps(a, b):
    return min(a[0] + a[2], b[0] + b[2]) > max(a[0], b[0]) and min(a[1] + a[3], b[1] + b[3]) > max(a[1], b[1])


def found_over(frame, truth_box, type_, shown):
    """The disparity of the found detection of `type_` (shown or not) over `truth_box`, if any."""
    for d in frame.get("detections", []):
        if d["type"] == type_ and bool(d.get("shown")) == shown and d.get("disparity") and overlaps(box(d), truth_box):
            return d["disparity"]
    return None


def main(truth_path, found_path, fps=30.0, as_json=False, mono=False):
    truth = [json.loads(line) for line in open(truth_path)]
    found = [json.loads(line) for line in open(found_path)]
    state = []  # per frame: (in front?, cup disparity, face disparity)
    for t in truth:
        cup = next((d for d in t.get("detections", []) if d["type"] == "salientObject" and d["id"] == 101), None)
        face = next((d for d in t.get("detections", []) if d["type"] == "humanFace" and d["id"] == 1), None)
        front = bool(cup and face and overlaps(box(cup), box(face)) and cup["disparity"] >= 1.2 * face["disparity"])
        state.append((front, cup["disparity"] if cup else None, face["disparity"] if face else None))
    if mono:  # the disparities the one-lens graph gave the cup and the face, where it saw them
        for i, t in enumerate(truth):
            cup = next((d for d in t.get("detections", []) if d["type"] == "salientObject" and d["id"] == 101), None)
            face = next((d for d in t.get("detections", []) if d["type"] == "humanFace" and d["id"] == 1), None)
            f = found[i] if i < len(found) else {}
            state[i] = (state[i][0], cup and found_over(f, box(cup), "salientObject", True),
                        face and found_over(f, box(face), "humanFace", False))
    focus = [(f.get("focus") or {}).get("focusDisparity") for f in found]
    events, k = [], 0
    while k < len(state):
        if not state[k][0]:
            k += 1
            continue
        start = k
        while k < len(state) and state[k][0]:
            k += 1
        end = k  # the first frame after the showing
        if end >= len(state):
            break  # still shown when the take ends: not a whole showing
        reach = next((j for j in range(start, len(state)) if focus[j] is not None and state[j][1]
                      and abs(focus[j] - state[j][1]) <= 0.1 * state[j][1]), None)
        back = next((j for j in range(end, len(state)) if focus[j] is not None and state[j][2]
                     and abs(focus[j] - state[j][2]) <= 0.1 * state[j][2]), None)
        events.append({"start": start / fps, "end": end / fps,
                       "reach": None if reach is None else (reach - start) / fps,
                       "back": None if back is None or end >= len(state) else (back - end) / fps})
    reached = sum(1 for e in events if e["reach"] is not None and e["reach"] <= 0.5)
    returned = sum(1 for e in events if e["back"] is not None and e["back"] <= 0.7)
    counted_back = len(events)
    if as_json:
        print(json.dumps({"showings": len(events), "reached": reached, "returned": returned, "returnable": counted_back,
                          "events": events}))
        return
    for e in events:
        r = "never" if e["reach"] is None else f"{e['reach']:.2f} s"
        b = "never" if e["back"] is None else f"{e['back']:.2f} s"
        print(f"showing {e['start']:.1f}–{e['end']:.1f} s: focus on the cup after {r}, back on the face {b} after it was lowered")
    print(f"{len(events)} showings: focus reached the cup within 0.5 s on {reached}, "
          f"came back within 0.7 s on {returned} of {counted_back}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], as_json="--json" in sys.argv[3:], mono="--mono" in sys.argv[3:])
