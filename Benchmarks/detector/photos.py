"""Faces on real photos with a known number of faces: `cinegraph detect` as a user runs it, with
the learned model (its default) and with the Haar cascades (`--model haar`), same photos, same run.

Photos (scikit-image's data, shipped with the package): astronaut and camera (one face each);
coffee, chelsea (a cat) and rocket (no human face); the LFW subset's 100 faces as a 10 x 10 sheet
(each tight 25 px crop scaled to 100 px and centred in a 200 px cell of mid gray: whole, the
tight crops side by side are no photo, and MediaPipe's own FaceDetection finds none of them),
and its 100 face-free crops as another. A box counts as a face found when its
centre lies in a face cell of the mosaic (one per cell), or, on a one-face portrait, for the first
box; every other box is a box where there is no face.

usage: photos.py CINEGRAPH_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import skimage.data as data
from skimage.io import imsave
from skimage.transform import resize

CELL = 200  # a sheet of portraits: each 100 px crop centred in its cell on mid gray
CROP = 100


def mosaic(crops):
    out = np.full((10 * CELL, 10 * CELL), 128, dtype=np.uint8)
    m = (CELL - CROP) // 2
    for k, c in enumerate(crops[:100]):
        r, q = divmod(k, 10)
        cell = resize(c, (CROP, CROP), order=1, anti_aliasing=False)
        out[r * CELL + m:r * CELL + m + CROP, q * CELL + m:q * CELL + m + CROP] = (np.clip(cell, 0, 1) * 255).astype(np.uint8)
    return out


def photos(folder):
    lfw = data.lfw_subset()
    items = [("astronaut.png", data.astronaut(), 1), ("camera.png", data.camera(), 1),
             ("coffee.png", data.coffee(), 0), ("chelsea.png", data.chelsea(), 0), ("rocket.png", data.rocket(), 0),
             ("lfw-faces.png", mosaic(lfw[:100]), 100), ("lfw-no-faces.png", mosaic(lfw[100:]), 0)]
    out = []
    for name, image, faces in items:
        path = os.path.join(folder, name)
        imsave(path, image, check_contrast=False)
        out.append((path, name, faces))
    return out


def score(binary, items, extra):
    found = missed = stray = 0
    per = []
    for path, name, faces in items:
        r = subprocess.run([binary, "detect", path, "--json"] + extra, capture_output=True, text=True, check=True)
        boxes = json.loads(r.stdout)[0]["objects"]
        if name == "lfw-faces.png":
            cells = set()
            for b in boxes:
                cx, cy = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
                cell = (int(cy // CELL), int(cx // CELL))
                if cell in cells:
                    stray += 1
                else:
                    cells.add(cell)
            hits = len(cells)
        else:
            hits = min(faces, len(boxes))
            stray += len(boxes) - hits
        found += hits
        missed += faces - hits
        per.append(f"{name} {len(boxes)}/{faces}")
    return found, missed, stray, per


def main(binary):
    with tempfile.TemporaryDirectory() as folder:
        items = photos(folder)
        known = sum(f for _, _, f in items)
        configurations = (("default: short range at every scale, landmark check", []),
                          ("full range at every scale, landmark check", ["--face-model", "face_detection_full_range_sparse.tflite"]),
                          ("short range at every scale, no landmark check", ["--landmark-model", "none"]),
                          ("short range, 5 tiles, no landmark check", ["--face-tiles", "5", "--landmark-model", "none"]),
                          ("haar cascades", ["--model", "haar"]))
        for label, extra in configurations:
            found, missed, stray, per = score(binary, items, extra)
            print(f"{label:52s} faces found {found}/{known} ({100 * found / known:.0f} %), "
                  f"boxes where there is no face {stray}   [{', '.join(per)}]")


if __name__ == "__main__":
    main(sys.argv[1])
