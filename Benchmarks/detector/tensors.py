"""Each learned model's outputs, tensor by tensor, against the reference runtime: cinegraph's
inference layer (`CineBench tensors`, LiteRT's C API through Swift) writes every model's input and
output tensors for real photos; LiteRT's own Python Interpreter (the pinned ai-edge-litert wheel
in the bench venv) runs the same .tflite on the same input, and the largest difference of each
output tensor is reported against the issue's 1e-3.

Photos: scikit-image's astronaut, coffee and chelsea, and 3 LFW portraits (scaled to 250 px).

usage: tensors.py CINEBENCH_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import skimage.data as data
from ai_edge_litert.interpreter import Interpreter
from skimage.io import imsave
from skimage.transform import resize


def photos(folder):
    items = [("astronaut", data.astronaut()), ("coffee", data.coffee()), ("chelsea", data.chelsea())]
    for k, face in enumerate(data.lfw_subset()[:3]):
        gray = (np.clip(resize(face, (250, 250), order=1), 0, 1) * 255).astype(np.uint8)
        items.append((f"lfw-{k}", np.stack([gray] * 3, axis=-1)))
    paths = []
    for name, image in items:
        path = os.path.join(folder, name + ".png")
        imsave(path, image[..., :3], check_contrast=False)
        paths.append(path)
    return paths


def main():
    cinebench = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        paths = photos(folder)
        out = os.path.join(folder, "tensors")
        subprocess.run([cinebench, "tensors", out] + paths, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "manifest.json")) as f:
            runs = json.load(f)
        worst = {}
        for run in runs:
            interpreter = Interpreter(model_path=run["model"], num_threads=1)
            interpreter.allocate_tensors()
            x = np.fromfile(run["input"], dtype=np.float32).reshape(run["input_shape"])
            interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
            interpreter.invoke()
            details = interpreter.get_output_details()
            model = os.path.basename(run["model"])
            for k, (path, shape) in enumerate(zip(run["outputs"], run["output_shapes"])):
                ours = np.fromfile(path, dtype=np.float32).reshape(shape)
                # The signature's k-th output: matched by shape among the interpreter's outputs.
                candidates = [d for d in details if list(d["shape"]) == list(shape)]
                diff = min(float(np.max(np.abs(interpreter.get_tensor(d["index"]) - ours))) for d in candidates)
                scale = float(np.max(np.abs(ours))) or 1.0
                key = (model, k, tuple(shape))
                previous = worst.get(key, (0.0, 0.0))
                worst[key] = (max(previous[0], diff), max(previous[1], scale))
        print(f"{'model':42} {'output':>14} {'largest |diff|':>15} {'largest |value|':>16}  (aim <= 1e-3)")
        failed = 0
        for (model, k, shape), (diff, scale) in sorted(worst.items()):
            mark = "" if diff <= 1e-3 else "  OVER"
            failed += diff > 1e-3
            print(f"{model:42} {k}: {'x'.join(map(str, shape)):>11} {diff:15.3g} {scale:16.4g}{mark}")
        print(f"{len(runs)} model runs on {len(paths)} photos; {len(worst) - failed} of {len(worst)} output tensors within 1e-3")


if __name__ == "__main__":
    main()
