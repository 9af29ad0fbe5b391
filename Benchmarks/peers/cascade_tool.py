#!/usr/bin/env python3
"""Whole-process peer of `cinegraph detect` for `make bench`: finds the faces in one photo with
OpenCV's frontal-face cascade (what a user without cinegraph runs) and prints them as JSON.

Usage: cascade_tool.py PHOTO [CASCADE_XML]
"""
import json
import sys

import cv2


def main():
    xml = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    gray = cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE)
    faces = cv2.CascadeClassifier(xml).detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3)
    print(json.dumps({"file": sys.argv[1], "faces": [list(map(int, r)) for r in faces]}))


if __name__ == "__main__":
    main()
