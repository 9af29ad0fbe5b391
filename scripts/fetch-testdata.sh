#!/usr/bin/env bash
# Fetches OpenCV's stereo chessboard photos (the left/right pairs its stereo_calib sample
# calibrates, board 9x6 inner corners) into .testdata/opencv-stereo/ and its clip of people
# walking (vtest.avi, 768x576, 10 fps: the bodies bench's real clip) into .testdata/opencv-people/
# (project-local, not in git),
# once: from Debian's package opencv-doc, downloaded with apt-get and unpacked without installing
# it. Their origin, licence and SHA-256 sums are written to ORIGIN.txt beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=.testdata/opencv-stereo
DATA=./usr/share/doc/opencv-doc/examples/data

PEOPLE=.testdata/opencv-people
count() { ls "$DEST"/left[0-9][0-9].jpg 2>/dev/null | wc -l; }
if [ -f "$DEST/ORIGIN.txt" ] && [ "$(count)" -gt 0 ] && [ -f "$PEOPLE/ORIGIN.txt" ]; then
  echo "fetch-testdata: $DEST holds $(count) stereo pairs; $PEOPLE holds vtest.avi"
  exit 0
fi

SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
chmod 777 "$TMP"  # so apt's _apt user can write the download there (no sandbox warning)
(
  cd "$TMP"
  apt-get download -qq opencv-doc >/dev/null 2>&1 || {
    # no package lists yet (or stale ones): read them once and try again
    $SUDO apt-get update -qq >&2
    apt-get download -qq opencv-doc >&2
  }
)
DEB=$(ls "$TMP"/opencv-doc_*.deb)
VERSION=$(dpkg-deb -f "$DEB" Version)

# Only the numbered pairs: left.jpg/right.jpg in the same folder are another scene, another size.
mkdir -p "$TMP/x"
dpkg-deb --fsys-tarfile "$DEB" | tar -x -C "$TMP/x" --wildcards \
  "$DATA/left[0-9][0-9].jpg" "$DATA/right[0-9][0-9].jpg" "$DATA/stereo_calib.xml" "$DATA/vtest.avi" \
  ./usr/share/doc/opencv-doc/copyright
mkdir -p "$DEST" "$PEOPLE"
cp "$TMP/x/$DATA"/*.jpg "$TMP/x/$DATA/stereo_calib.xml" "$DEST"/
cp "$TMP/x/$DATA/vtest.avi" "$PEOPLE"/
{
  echo "Files fetched by scripts/fetch-testdata.sh (not part of cinegraph's source)."
  echo "From Debian 12's package opencv-doc $VERSION, ${DATA#.}/vtest.avi: OpenCV's sample clip of"
  echo "people walking (upstream samples/data/), used by its people-detection samples."
  echo "Licence, per the package's debian/copyright (Files: *): Apache-2.0 AND BSD-3-Clause."
  echo
  (cd "$PEOPLE" && sha256sum vtest.avi)
} > "$PEOPLE/ORIGIN.txt"

# ORIGIN.txt is written last: it marks the folder complete.
{
  echo "Files fetched by scripts/fetch-testdata.sh (not part of cinegraph's source)."
  echo "From Debian 12's package opencv-doc $VERSION, ${DATA#.}/:"
  echo "OpenCV's sample data (upstream samples/data/), the images of samples/cpp/stereo_calib.cpp."
  echo "Licence, per the package's debian/copyright (Files: *): Apache-2.0 AND BSD-3-Clause"
  echo "  (\"upstream relicensed the whole project to Apache-2.0, but a large portion of the"
  echo "  source tree remains to be licensed under BSD-3-Clause\")."
  echo "Copyright: Intel Corporation, Willow Garage Inc., OpenCV Foundation and others."
  echo
  (cd "$DEST" && sha256sum left[0-9][0-9].jpg right[0-9][0-9].jpg stereo_calib.xml)
} > "$DEST/ORIGIN.txt.tmp"
mv "$DEST/ORIGIN.txt.tmp" "$DEST/ORIGIN.txt"
echo "fetch-testdata: $DEST holds $(count) stereo pairs; $PEOPLE holds vtest.avi"
