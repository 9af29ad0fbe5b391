#!/usr/bin/env python3
"""Bokeh floor reference for `make bench`: OpenCV filter2D with a disk kernel of the bokeh
renderer's maximum radius over a 1080p 8-bit BGR frame — a uniform blur with no depth at all.
Prints one line per thread count: `threads=N ms=M` (median ms per frame)."""
import argparse
import time

import cv2
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--radius", type=int, default=32)
p.add_argument("--frames", type=int, default=10)
p.add_argument("--width", type=int, default=1920)
p.add_argument("--height", type=int, default=1080)
a = p.parse_args()

rng = np.random.default_rng(1)
frame = rng.integers(0, 256, (a.height, a.width, 3), dtype=np.uint8)
r = a.radius
yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
disk = ((xx * xx + yy * yy) <= r * r).astype(np.float32)
disk /= disk.sum()
for threads in (1, 2):
    cv2.setNumThreads(threads)
    cv2.filter2D(frame, -1, disk)  # warm-up
    samples = []
    for _ in range(a.frames):
        t0 = time.perf_counter()
        cv2.filter2D(frame, -1, disk)
        samples.append((time.perf_counter() - t0) * 1000)
    ms = sorted(samples)[len(samples) // 2]  # median: robust to other load on a shared machine
    print(f"threads={threads} ms={ms:.2f}", flush=True)
