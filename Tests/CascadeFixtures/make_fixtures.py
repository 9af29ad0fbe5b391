#!/usr/bin/env python3
# Makes the cascade test fixtures ONCE with OpenCV (opencv-python-headless<5, from
# scripts/bench-venv.sh) and scikit-image's bundled photographs: small gray crops as PGM
# and OpenCV's detectMultiScale outputs as JSON. Run: .venv-bench/bin/python Tests/CascadeFixtures/make_fixtures.py
import json, os
import cv2, numpy as np
from skimage import data

HERE = os.path.dirname(os.path.abspath(__file__))
H = "/usr/share/opencv4/haarcascades/"
L = "/usr/share/opencv4/lbpcascades/"

def gray(rgb):
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)

images = {
    # The astronaut (Eileen Collins), 512x512, scaled to 200x200: one frontal face.
    "astronaut200": cv2.resize(gray(data.astronaut()), (200, 200), interpolation=cv2.INTER_AREA),
    # Chelsea the cat, 451x300, scaled to 226x150: one frontal cat face.
    "chelsea226": cv2.resize(gray(data.chelsea()), (226, 150), interpolation=cv2.INTER_AREA),
    # The cameraman, 512x512, scaled to 160x160 (odd scale ratios for the pyramid).
    "camera160": cv2.resize(data.camera(), (160, 160), interpolation=cv2.INTER_AREA),
}
cases = [
    ("astronaut200", H + "haarcascade_frontalface_default.xml", 1.1, 3),
    ("astronaut200", H + "haarcascade_frontalface_alt2.xml", 1.1, 3),
    ("astronaut200", H + "haarcascade_frontalface_alt_tree.xml", 1.1, 3),
    ("astronaut200", L + "lbpcascade_frontalface_improved.xml", 1.1, 3),
    ("astronaut200", H + "haarcascade_upperbody.xml", 1.05, 0),
    ("astronaut200", H + "haarcascade_fullbody.xml", 1.05, 0),
    ("astronaut200", L + "lbpcascade_frontalface.xml", 1.1, 0),
    ("astronaut200", H + "haarcascade_frontalface_alt.xml", 1.1, 0),
    ("astronaut200", H + "haarcascade_frontalface_default.xml", 1.1, 0),
    ("chelsea226", H + "haarcascade_frontalcatface.xml", 1.1, 3),
    ("chelsea226", H + "haarcascade_frontalcatface_extended.xml", 1.1, 0),
    ("chelsea226", L + "lbpcascade_frontalcatface.xml", 1.1, 0),
    ("camera160", H + "haarcascade_profileface.xml", 1.1, 0),
    ("camera160", H + "haarcascade_eye_tree_eyeglasses.xml", 1.2, 0),
    ("camera160", H + "haarcascade_licence_plate_rus_16stages.xml", 1.1, 0),
]
out = {"opencv": cv2.__version__, "cases": []}
for name, img in images.items():
    h, w = img.shape
    with open(os.path.join(HERE, name + ".pgm"), "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + img.tobytes())
for name, xml, sf, mn in cases:
    c = cv2.CascadeClassifier(xml)
    assert not c.empty(), xml
    r = c.detectMultiScale(images[name], scaleFactor=sf, minNeighbors=mn)
    rects = sorted([list(map(int, x)) for x in r]) if len(r) else []
    out["cases"].append({"image": name, "cascade": os.path.basename(xml), "scaleFactor": sf,
                         "minNeighbors": mn, "rects": rects})
# Tilted integral of a small image, for the IntegralImage test.
rng = np.random.default_rng(5)
small = rng.integers(0, 256, size=(5, 7), dtype=np.uint8)
s, sq, t = cv2.integral3(small, sdepth=cv2.CV_32S, sqdepth=cv2.CV_64F)
out["integral"] = {"width": 7, "height": 5, "pixels": small.flatten().tolist(),
                   "sum": s.flatten().tolist(), "squares": sq.astype(np.int64).flatten().tolist(),
                   "tilted": t.flatten().tolist()}
# Bit-exact resize of a 23x17 ramp to 10x7.
ramp = rng.integers(0, 256, size=(17, 23), dtype=np.uint8)
rs = cv2.resize(ramp, (10, 7), interpolation=cv2.INTER_LINEAR_EXACT)
out["resize"] = {"width": 23, "height": 17, "pixels": ramp.flatten().tolist(), "outWidth": 10, "outHeight": 7,
                 "out": rs.flatten().tolist()}
with open(os.path.join(HERE, "opencv_detections.json"), "w") as f:
    json.dump(out, f, indent=1)
for c in out["cases"]:
    print(c["image"], c["cascade"], c["minNeighbors"], len(c["rects"]), c["rects"][:3])
