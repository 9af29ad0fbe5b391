"""Draws docs/images/detect-sheet.png: the top two rows of two of the small-face sheets of Benchmarks/detector/photos.py
(24 LFW faces of 20 px and of 24 px on a 1280 x 720 frame) as `cinegraph detect` sees them. Green:
a face the landmark model confirms (presence >= 0.6); yellow: one the detector is sure of (score
>= 0.75) that the landmark model does not rule out (presence >= 0.05); red: a box refused. Each
box is labelled with the detector's score and the landmark model's presence.

usage: sheet.py CINEGRAPH_BINARY OUT.png
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import skimage.data as data
from PIL import Image, ImageDraw, ImageFont
from skimage.io import imsave

sys.path.insert(0, os.path.dirname(__file__))
from photos import small_faces  # noqa: E402


def boxes(binary, path, extra):
    r = subprocess.run([binary, "detect", path, "--json"] + extra, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)[0]["objects"]


def sheet(binary, folder, size):
    path = os.path.join(folder, f"faces-{size}px.png")
    imsave(path, small_faces(data.lfw_subset()[:100], size)[0], check_contrast=False)
    kept = boxes(binary, path, [])
    every = boxes(binary, path, ["--face-presence", "0"])
    # Each face twice as large, so that a reader sees them; the boxes and labels drawn at that size.
    picture = Image.open(path).convert("RGB").resize((2560, 1440), Image.NEAREST)
    draw = ImageDraw.Draw(picture)
    font = ImageFont.load_default(size=26)
    same = lambda a, b: abs(a["x"] - b["x"]) < 2 and abs(a["y"] - b["y"]) < 2
    counts = [0, 0, 0]
    for b in every:
        p = b.get("presence", 0)
        k = 2 if not any(same(b, q) for q in kept) else (0 if p >= 0.6 else 1)
        counts[k] += 1
        colour = [(40, 210, 40), (250, 210, 0), (235, 30, 30)][k]
        x, y, w, h = (2 * b[k] for k in ("x", "y", "width", "height"))
        draw.rectangle([x - 6, y - 6, x + w + 6, y + h + 6], outline=colour, width=4)
        draw.text((x - 40, y + h + 12), f"{b['confidence']:.2f} / {p:.2f}", fill=colour, font=font)
    draw.text((16, 12), f"{size} px faces (two of four rows): {counts[0]} green, {counts[1]} yellow, {counts[2]} red "
              "on the sheet; labels: detector score / landmark presence", fill=(255, 255, 255), font=font)
    return picture.crop((0, 0, 2560, 720)), counts


def main(binary, out):
    with tempfile.TemporaryDirectory() as folder:
        a, ca = sheet(binary, folder, 20)
        b, cb = sheet(binary, folder, 24)
    both = Image.new("RGB", (2560, 1440))
    both.paste(a, (0, 0))
    both.paste(b, (0, 720))
    both.resize((1600, 900), Image.LANCZOS).save(out)
    print(f"{out}: 20 px {ca}, 24 px {cb} (green, yellow, red)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
