"""Faces on real photos with a known number of faces: `cinegraph detect` as a user runs it, with
the learned model (its default) and with the Haar cascades (`--model haar`), same photos, same run.

Photos (scikit-image's data, shipped with the package): astronaut and camera (one face each);
coffee, chelsea (a cat) and rocket (no human face); the LFW subset's 100 faces as a 10 x 10 sheet
(each tight 25 px crop scaled to 100 px and centred in a 200 px cell of mid gray: whole, the
tight crops side by side are no photo, and MediaPipe's own FaceDetection finds none of them),
and its 100 face-free crops as another; and small faces: sheets of 1280 x 720 (a wide shot's
frame) with 24 LFW faces each, 6 x 4 on mid gray, one sheet per face size (20 to 96 px). A box
counts as a face found when its centre lies in a face cell of the mosaic (one per cell), within
a face's size of a small face's centre (one per face), or, on a one-face portrait, for the first
box; every other box is a box where there is no face. Prints the totals per configuration, then
the default's recall by face size.

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
SMALL = (20, 24, 32, 48, 64, 96)  # the small-face sheets' face sizes, px


def mosaic(crops):
    out = np.full((10 * CELL, 10 * CELL), 128, dtype=np.uint8)
    m = (CELL - CROP) // 2
    for k, c in enumerate(crops[:100]):
        r, q = divmod(k, 10)
        cell = resize(c, (CROP, CROP), order=1, anti_aliasing=False)
        out[r * CELL + m:r * CELL + m + CROP, q * CELL + m:q * CELL + m + CROP] = (np.clip(cell, 0, 1) * 255).astype(np.uint8)
    return out


def small_faces(crops, size):
    """24 faces of `size` px on a 1280 x 720 frame, 6 x 4, and their centres."""
    out = np.full((720, 1280), 128, dtype=np.uint8)
    centres = []
    for k in range(24):
        r, q = divmod(k, 6)
        face = (np.clip(resize(crops[(k + size) % len(crops)], (size, size), order=1, anti_aliasing=True), 0, 1) * 255).astype(np.uint8)
        cx, cy = int((q + 0.5) * 1280 / 6), int((r + 0.5) * 720 / 4)
        out[cy - size // 2:cy - size // 2 + size, cx - size // 2:cx - size // 2 + size] = face
        centres.append((cx, cy))
    return out, centres


def photos(folder):
    lfw = data.lfw_subset()
    items = [("astronaut.png", data.astronaut(), 1), ("camera.png", data.camera(), 1),
             ("coffee.png", data.coffee(), 0), ("chelsea.png", data.chelsea(), 0), ("rocket.png", data.rocket(), 0),
             ("lfw-faces.png", mosaic(lfw[:100]), 100), ("lfw-no-faces.png", mosaic(lfw[100:]), 0)]
    items = [(name, image, faces, None) for name, image, faces in items]
    for size in SMALL:
        image, centres = small_faces(lfw[:100], size)
        items.append((f"faces-{size}px.png", image, len(centres), (centres, size)))
    out = []
    for name, image, faces, small in items:
        path = os.path.join(folder, name)
        imsave(path, image, check_contrast=False)
        out.append((path, name, faces, small))
    return out


def score(binary, items, extra):
    found = missed = stray = 0
    per = []
    by_size = {}
    for path, name, faces, small in items:
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
        elif small:
            centres, size = small
            matched = set()
            for b in boxes:
                cx, cy = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
                near = [k for k, (x, y) in enumerate(centres) if abs(cx - x) < size and abs(cy - y) < size and k not in matched]
                if near:
                    matched.add(near[0])
                else:
                    stray += 1
            hits = len(matched)
            by_size[size] = (hits, faces)
        else:
            hits = min(faces, len(boxes))
            stray += len(boxes) - hits
        found += hits
        missed += faces - hits
        per.append(f"{name} {len(boxes)}/{faces}")
    return found, missed, stray, per, by_size


def main(binary):
    with tempfile.TemporaryDirectory() as folder:
        items = photos(folder)
        known = sum(f for _, _, f, _ in items)
        configurations = (("default: short range at every scale, landmark check", []),
                          ("full range at every scale, landmark check", ["--face-model", "face_detection_full_range_sparse.tflite"]),
                          ("short range at every scale, no landmark check", ["--landmark-model", "none"]),
                          ("short range, 5 tiles, no landmark check", ["--face-tiles", "5", "--landmark-model", "none"]),
                          ("haar cascades", ["--model", "haar"]))
        default_sizes = None
        for label, extra in configurations:
            found, missed, stray, per, by_size = score(binary, items, extra)
            default_sizes = default_sizes or by_size
            print(f"{label:52s} faces found {found}/{known} ({100 * found / known:.1f} %), "
                  f"boxes where there is no face {stray}   [{', '.join(per)}]")
        print("default, recall by face size on the 1280 x 720 sheets: " +
              ", ".join(f"{s} px {h}/{n}" for s, (h, n) in sorted(default_sizes.items())))


if __name__ == "__main__":
    main(sys.argv[1])
