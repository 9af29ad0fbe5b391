"""cinegraph's learned face models against the reference: the `mediapipe` Python package running
the same .tflite files on the same photos. BlazeFace (short range, whole image letterboxed) against
mediapipe's FaceDetection(model_selection=0): same number of faces, box IoU and score; the face
landmark model against mediapipe's FaceMesh (static images): mean and largest distance of the 468
points, as a share of the face box's width.

Photos: scikit-image's astronaut and camera, and 40 LFW portraits (each tight crop scaled to
200 px and centred on a 400 px mid-gray canvas, as one photo each).

usage: reference.py CINEGRAPH_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

import mediapipe as mp
import numpy as np
import skimage.data as data
from skimage.io import imsave
from skimage.transform import resize


def photos(folder):
    items = [("astronaut.png", data.astronaut()), ("camera.png", data.camera())]
    for k, face in enumerate(data.lfw_subset()[:40]):
        canvas = np.full((400, 400), 128, dtype=np.uint8)
        canvas[100:300, 100:300] = (np.clip(resize(face, (200, 200), order=1), 0, 1) * 255).astype(np.uint8)
        items.append((f"lfw-{k:02d}.png", canvas))
    out = []
    for name, image in items:
        path = os.path.join(folder, name)
        imsave(path, image, check_contrast=False)
        rgb = image if image.ndim == 3 else np.stack([image] * 3, axis=-1)
        out.append((path, np.ascontiguousarray(rgb[..., :3])))
    return out


def iou(a, b):
    iw = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def main(binary):
    with tempfile.TemporaryDirectory() as folder:
        items = photos(folder)
        r = subprocess.run([binary, "detect", *[p for p, _ in items], "--json", "--face-tiles", "0", "--mesh"],
                           capture_output=True, text=True, check=True)
        ours = {o["image"]: o["objects"] for o in json.loads(r.stdout)}
        detector = mp.solutions.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5)
        mesher = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=4, refine_landmarks=False)
        count_same, differ = 0, []
        ious, score_diffs, mesh_mean, mesh_max = [], [], [], []
        for path, rgb in items:
            h, w = rgb.shape[:2]
            theirs = []
            for d in detector.process(rgb).detections or []:
                b = d.location_data.relative_bounding_box
                theirs.append(((b.xmin * w, b.ymin * h, b.width * w, b.height * h), d.score[0]))
            mine = [((o["x"], o["y"], o["width"], o["height"]), o["confidence"], o.get("mesh")) for o in ours[path]]
            # The reference has no landmark check: compare with every box BlazeFace gave.
            if len(theirs) == len(mine):
                count_same += 1
            else:
                differ.append(f"{os.path.basename(path)} {len(mine)} vs {len(theirs)}")
            for box, score, points in mine:
                best = max(theirs, key=lambda t: iou(box, t[0]), default=None)
                if best is None:
                    continue
                ious.append(iou(box, best[0]))
                score_diffs.append(abs(score - best[1]))
            meshes = mesher.process(rgb).multi_face_landmarks or []
            for box, _, points in mine:
                if not points or not meshes:
                    continue
                p = np.array(points)[:, :2]
                candidates = [np.array([[l.x * w, l.y * h] for l in m.landmark]) for m in meshes]
                q = min(candidates, key=lambda c: np.linalg.norm(c.mean(0) - p.mean(0)))
                d = np.linalg.norm(p - q, axis=1) / box[2]
                mesh_mean.append(d.mean())
                mesh_max.append(d.max())
        n = len(items)
        print(f"blazeface vs mediapipe FaceDetection: same face count on {count_same}/{n} photos {differ}, "
              f"box IoU min {min(ious):.3f} median {np.median(ious):.3f}, score |diff| max {max(score_diffs):.4f}")
        print(f"face landmarks vs mediapipe FaceMesh: {len(mesh_mean)} faces, point distance / face width "
              f"median {np.median(mesh_mean) * 100:.2f} %, mean {np.mean(mesh_mean) * 100:.2f} %, worst face's mean {max(mesh_mean) * 100:.2f} %, "
              f"largest {max(mesh_max) * 100:.2f} %")


if __name__ == "__main__":
    main(sys.argv[1])
