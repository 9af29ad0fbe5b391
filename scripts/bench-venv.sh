#!/usr/bin/env bash
# Creates the Python venv with the benchmark peers (OpenCV), once: .venv-bench/.
# OpenCV is a peer to compare against, never a dependency of cinegraph itself.
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
echo "$(pwd)/$VENV/bin/python"
