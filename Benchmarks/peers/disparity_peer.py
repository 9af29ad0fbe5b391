#!/usr/bin/env python3
"""OpenCV StereoSGBM peer for `make bench` (issue 4): matches the pairs CineBench wrote and
prints one JSON line per (pair, mode, threads) with the median time, bad-2.0 and density.

Usage: disparity_peer.py MANIFEST.json
The manifest lists pairs: {"name", "left", "right", "truth" (raw little-endian float32),
"width", "height", "disparities", "runs"}. Invalid OpenCV pixels (disparity < 0) count as bad.
"""
import json
import sys
import time

import cv2
import numpy as np


def score(disp, truth):
    valid = disp >= 0
    err = np.abs(disp - truth)
    bad2 = np.logical_or(~valid, err > 2.0).mean() * 100
    bad1 = np.logical_or(~valid, err > 1.0).mean() * 100
    return bad1, bad2, valid.mean() * 100


def main():
    manifest = json.load(open(sys.argv[1]))
    for pair in manifest["pairs"]:
        left = cv2.imread(pair["left"], cv2.IMREAD_GRAYSCALE)
        right = cv2.imread(pair["right"], cv2.IMREAD_GRAYSCALE)
        truth = np.fromfile(pair["truth"], dtype="<f4").reshape(pair["height"], pair["width"])
        for mode_name, mode in (("SGBM_3WAY", cv2.STEREO_SGBM_MODE_SGBM_3WAY), ("SGBM", cv2.STEREO_SGBM_MODE_SGBM)):
            for threads in (1, 2):
                cv2.setNumThreads(threads)
                block = 5
                sgbm = cv2.StereoSGBM_create(
                    minDisparity=0, numDisparities=pair["disparities"], blockSize=block,
                    P1=8 * block * block, P2=32 * block * block, disp12MaxDiff=1, uniquenessRatio=10,
                    speckleWindowSize=100, speckleRange=2, mode=mode)
                sgbm.compute(left, right)  # warm-up
                times = []
                for _ in range(pair["runs"]):
                    t0 = time.perf_counter()
                    raw = sgbm.compute(left, right)
                    times.append(time.perf_counter() - t0)
                disp = raw.astype(np.float32) / 16.0
                disp[raw < 0] = -1
                bad1, bad2, density = score(disp, truth)
                print(json.dumps({"pair": pair["name"], "mode": mode_name, "threads": threads,
                                  "ms": sorted(times)[len(times) // 2] * 1000, "bad1": bad1, "bad2": bad2,
                                  "density": density}), flush=True)


if __name__ == "__main__":
    main()
