#!/usr/bin/env python3
"""Whole-process peer of `cinegraph disparity` for `make bench`: reads a rectified pair, matches
it with OpenCV's StereoSGBM (3-way, 5×5 blocks, like disparity_peer.py) and writes the disparity
as a Middlebury PFM — what a user runs to get the same file. Prints the matching time (ms) on
stderr so the bench can split the process into start-up + decode and matching.

Usage: sgbm_tool.py LEFT RIGHT OUT.pfm [DISPARITIES [THREADS]]
"""
import sys
import time

import cv2
import numpy as np


def main():
    left = cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE)
    right = cv2.imread(sys.argv[2], cv2.IMREAD_GRAYSCALE)
    disparities = int(sys.argv[4]) if len(sys.argv) > 4 else 128
    cv2.setNumThreads(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    block = 5
    sgbm = cv2.StereoSGBM_create(minDisparity=0, numDisparities=disparities, blockSize=block,
                                 P1=8 * block * block, P2=32 * block * block, disp12MaxDiff=1,
                                 uniquenessRatio=10, speckleWindowSize=100, speckleRange=2,
                                 mode=cv2.STEREO_SGBM_MODE_SGBM_3WAY)
    t0 = time.perf_counter()
    disp = sgbm.compute(left, right).astype(np.float32) / 16
    ms = (time.perf_counter() - t0) * 1000
    disp[disp < 0] = np.inf
    with open(sys.argv[3], "wb") as f:
        f.write(b"Pf\n%d %d\n-1.0\n" % (disp.shape[1], disp.shape[0]))
        f.write(np.flipud(disp).astype("<f4").tobytes())
    print("matching %.1f ms" % ms, file=sys.stderr)


if __name__ == "__main__":
    main()
