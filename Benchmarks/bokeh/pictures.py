#!/usr/bin/env python3
"""Pictures for docs/bokeh.md.

  pictures.py edge EDGE_DIR OUT.png     crops of `edge.py --keep EDGE_DIR`: the input, focus on
                                        the subject, focus on the plane, and the reference
  pictures.py tiers A.mp4 B.mp4 C.mp4 LABELS OUT.png
                                        frame 150 of three renders (draft, standard, high), one crop
"""
import sys
import cv2
import numpy as np


def label(img, text):
    out = img.copy()
    cv2.rectangle(out, (0, 0), (out.shape[1], 26), (0, 0, 0), -1)
    cv2.putText(out, text, (6, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def edge(folder, out):
    crop = lambda im: cv2.resize(im[150:330, 600:780], None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
    names = [("scene.png", "input"), ("out.png", "focus on subject, f/2"),
             ("foreground.png", "focus on plane: subject in front"), ("foreground-reference.png", "layered reference")]
    tiles = [label(crop(cv2.imread(f"{folder}/{n}")), t) for n, t in names]
    cv2.imwrite(out, np.hstack(tiles))


def tiers(paths, labels, out):
    tiles = []
    for p, t in zip(paths, labels.split(",")):
        cap = cv2.VideoCapture(p)
        cap.set(cv2.CAP_PROP_POS_FRAMES, 150)
        ok, f = cap.read()
        assert ok, p
        tiles.append(label(f[360:900, 120:760], t))
    cv2.imwrite(out, np.hstack(tiles))


if __name__ == "__main__":
    if sys.argv[1] == "edge":
        edge(sys.argv[2], sys.argv[3])
    else:
        tiers(sys.argv[2:5], sys.argv[5], sys.argv[6])
