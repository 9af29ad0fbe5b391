#!/usr/bin/env python3
# Makes the photo fixtures ONCE from scikit-image's bundled photographs (scripts/bench-venv.sh has
# it): Run: .venv-bench/bin/python Tests/PhotoFixtures/make_fixtures.py
#   astronaut.jpg — Eileen Collins, NASA portrait (public domain), 512x512, JPEG quality 95: a real
#   portrait with hair, a suit and a background, for the matte's edge and flicker.
import os
import cv2
from skimage import data

HERE = os.path.dirname(os.path.abspath(__file__))
cv2.imwrite(os.path.join(HERE, "astronaut.jpg"), cv2.cvtColor(data.astronaut(), cv2.COLOR_RGB2BGR),
            [cv2.IMWRITE_JPEG_QUALITY, 95])
