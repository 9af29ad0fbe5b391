#!/usr/bin/env python3
"""OpenCV peer for stereo calibration: calibrates a stereo rig from chessboard pairs the way
OpenCV's samples/cpp/stereo_calib.cpp and its calibration tutorials do, and prints one JSON line:
pairs used/given, stereo and per-camera RMS reprojection error (px), both cameras' intrinsics, the
baseline |T| (in squares × --square), the rectified epipolar error (mean and max of
|y_left - y_right| over all corners, px) and the wall time of the whole run (image decoding, corner
finding, calibration and rectification).

Usage: calib_peer.py --board COLSxROWS [--square SIZE] [--sb] LEFT... --right RIGHT...
--board counts inner corners (OpenCV's stereo photos: 9x6). LEFT[i] and RIGHT[i] form pair i;
only pairs where both views find the board are used. --sb finds corners with
findChessboardCornersSB instead of findChessboardCorners + cornerSubPix.
Errors (unreadable image, sizes that differ, no usable pair) go to stderr with exit status 1.
"""
import argparse
import json
import sys
import time

import cv2
import numpy as np


def fail(message):
    print(f"calib_peer: {message}", file=sys.stderr)
    sys.exit(1)


def find_corners(gray, board, sb):
    if sb:
        flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY
        return cv2.findChessboardCornersSB(gray, board, flags=flags)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    found, corners = cv2.findChessboardCorners(gray, board, flags=flags)
    if found:
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
        corners = cv2.cornerSubPix(gray, corners, (11, 11), (-1, -1), criteria)
    return found, corners


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--board", required=True, help="inner corners, COLSxROWS, e.g. 9x6")
    parser.add_argument("--square", type=float, default=1.0, help="square size (unit of baseline)")
    parser.add_argument("--sb", action="store_true", help="use findChessboardCornersSB")
    parser.add_argument("left", nargs="+", help="left images")
    parser.add_argument("--right", nargs="+", required=True, help="right images, same order")
    args = parser.parse_args()
    try:
        cols, rows = (int(n) for n in args.board.lower().split("x"))
    except ValueError:
        fail(f"--board must be COLSxROWS, not {args.board!r}")
    if len(args.left) != len(args.right):
        fail(f"{len(args.left)} left images but {len(args.right)} right images")
    board = (cols, rows)

    start = time.perf_counter()
    size = None
    left_points, right_points = [], []
    for left_path, right_path in zip(args.left, args.right):
        views = []
        for path in (left_path, right_path):
            gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
            if gray is None:
                fail(f"cannot read {path}")
            if size is None:
                size = (gray.shape[1], gray.shape[0])
            elif (gray.shape[1], gray.shape[0]) != size:
                fail(f"{path} is {gray.shape[1]}x{gray.shape[0]}, the others {size[0]}x{size[1]}")
            found, corners = find_corners(gray, board, args.sb)
            views.append(corners if found else None)
        if views[0] is not None and views[1] is not None:
            left_points.append(views[0].astype(np.float32))
            right_points.append(views[1].astype(np.float32))
    if not left_points:
        fail("no pair shows the board in both views")

    # The board's corners: x fastest, z = 0, `square` apart.
    grid = np.zeros((rows * cols, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * args.square
    objects = [grid] * len(left_points)

    try:
        rms_left, K1, D1, _, _ = cv2.calibrateCamera(objects, left_points, size, None, None)
        rms_right, K2, D2, _, _ = cv2.calibrateCamera(objects, right_points, size, None, None)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 100, 1e-6)
        rms, K1, D1, K2, D2, R, T, _, _ = cv2.stereoCalibrate(
            objects, left_points, right_points, K1, D1, K2, D2, size,
            flags=cv2.CALIB_USE_INTRINSIC_GUESS, criteria=criteria)
        R1, R2, P1, P2, _, _, _ = cv2.stereoRectify(K1, D1, K2, D2, size, R, T, alpha=0)
    except cv2.error as error:
        fail(f"OpenCV failed: {error}")

    # Rectified epipolar error: after rectification a corner sits on the same row in both views.
    y_left = np.concatenate([cv2.undistortPoints(p, K1, D1, R=R1, P=P1)[:, 0, 1] for p in left_points])
    y_right = np.concatenate([cv2.undistortPoints(p, K2, D2, R=R2, P=P2)[:, 0, 1] for p in right_points])
    epipolar = np.abs(y_left - y_right)
    seconds = time.perf_counter() - start

    print(json.dumps({
        "pairs_used": len(left_points), "pairs_given": len(args.left),
        "rms": rms, "rms_left": rms_left, "rms_right": rms_right,
        "fx_left": K1[0, 0], "fy_left": K1[1, 1], "cx_left": K1[0, 2], "cy_left": K1[1, 2],
        "fx_right": K2[0, 0], "baseline": float(np.linalg.norm(T)),
        "epipolar_mean": float(epipolar.mean()), "epipolar_max": float(epipolar.max()),
        "seconds": seconds,
    }))


if __name__ == "__main__":
    main()
