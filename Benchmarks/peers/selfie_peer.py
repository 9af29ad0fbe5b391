"""The loop the open background-blur webcam tools run (OBS background removal, backscrub,
Linux-Fake-Background-Webcam): MediaPipe's Python selfie segmentation (the landscape model, as
they use) on each 1280x720 frame, an OpenCV Gaussian blur of the whole frame, and a composite
`mask * frame + (1 - mask) * blur` — the peer of cinegraph's virtual webcam graph.

Frames come from a movie decoded into memory first (decoding is not counted). The loop runs
paced at the camera's 30 fps for SECONDS, as a webcam delivers frames, then unpaced for the
most frames per second it can do.

    python selfie_peer.py MOVIE [SECONDS]

Prints `peer_paced_fps=… peer_cpu_cores=… peer_frame_ms_p50=… peer_max_fps=…`.
"""

import sys
import time

import cv2
import mediapipe as mp
import numpy as np


def load(path, limit=150):
    cap = cv2.VideoCapture(path)
    frames = []
    while len(frames) < limit:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    if not frames:
        sys.exit(f"selfie_peer: no frames in {path}")
    return frames


def main():
    path = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
    frames = load(path)
    seg = mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=1)

    def one(frame):
        rgb = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
        mask = seg.process(rgb).segmentation_mask[..., None]
        blurred = cv2.GaussianBlur(frame, (0, 0), 12)
        return (mask * frame + (1 - mask) * blurred).astype(np.uint8)

    for f in frames[:10]:  # warm up
        one(f)

    # Paced: a frame every 1/30 s, as a webcam delivers them.
    n = int(seconds * 30)
    costs = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for k in range(n):
        due = wall0 + k / 30
        now = time.perf_counter()
        if now < due:
            time.sleep(due - now)
        t = time.perf_counter()
        one(frames[k % len(frames)])
        costs.append((time.perf_counter() - t) * 1000)
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    costs.sort()

    # Unpaced: as many frames as it can.
    m = 150
    t = time.perf_counter()
    for k in range(m):
        one(frames[k % len(frames)])
    best = m / (time.perf_counter() - t)
    print(f"peer_paced_fps={n / wall:.1f} peer_cpu_cores={cpu / wall:.2f} "
          f"peer_frame_ms_p50={costs[len(costs) // 2]:.1f} peer_max_fps={best:.1f}")


if __name__ == "__main__":
    main()
