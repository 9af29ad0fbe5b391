#!/usr/bin/env python3
"""OpenCV CascadeClassifier peer for `make bench` (issue 5): runs detectMultiScale on the
images CineBench wrote, with the same XML and parameters, and prints one JSON line per
(image, cascade, threads) with the median time and the rectangles.

Usage: detector_peer.py MANIFEST.json
Manifest: {"images": [{"name", "path"}], "cascades": [xml...], "scaleFactor", "minNeighbors", "runs"}.
"""
import json
import sys
import time

import cv2


def main():
    m = json.load(open(sys.argv[1]))
    for image in m["images"]:
        gray = cv2.imread(image["path"], cv2.IMREAD_GRAYSCALE)
        for xml in m["cascades"]:
            c = cv2.CascadeClassifier(xml)
            for threads in (1, 2):
                cv2.setNumThreads(threads)
                rects = c.detectMultiScale(gray, scaleFactor=m["scaleFactor"], minNeighbors=m["minNeighbors"])
                times = []
                for _ in range(m["runs"]):
                    t0 = time.perf_counter()
                    c.detectMultiScale(gray, scaleFactor=m["scaleFactor"], minNeighbors=m["minNeighbors"])
                    times.append(time.perf_counter() - t0)
                times.sort()
                print(json.dumps({"image": image["name"], "cascade": xml, "threads": threads,
                                  "ms": times[len(times) // 2] * 1000,
                                  "rects": [list(map(int, r)) for r in rects]}), flush=True)


if __name__ == "__main__":
    main()
