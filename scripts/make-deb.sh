#!/usr/bin/env bash
# Builds the Debian 12 package (make deb): OUTDIR/cinegraph_<version>_amd64.deb, with dpkg-deb.
#
#   scripts/make-deb.sh BIN_DIR OUTDIR
#
# Stages `scripts/install.sh BIN_DIR /usr` (the same layout as make install), strips the binary,
# writes DEBIAN/control with Depends from what the binary and LiteRT link (dpkg -S) plus the
# GStreamer plugin packages the graphs use, runs lintian (an error fails the build), and installs
# the package into a throwaway root with dpkg to check that it unpacks. VERSION (the Debian
# version) and MAINTAINER may be set in the environment; by default the version is the last tag,
# or `cinegraph --version`+git<commits>.<sha>, and the maintainer the last commit's author.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/make-deb.sh BIN_DIR OUTDIR" >&2; exit 2; }
die() { echo "make-deb: $*" >&2; exit 1; }
[ -x "$1/cinegraph" ] || die "$1/cinegraph is not there: build it first (make release)"
BIN_DIR=$(cd "$1" && pwd)
mkdir -p "$2"
OUTDIR=$(cd "$2" && pwd)
cd "$(dirname "$0")/.."
BIN="$BIN_DIR/cinegraph"

# The version: a tag v1.2.3 → 1.2.3 (1.2.3+git4.abc1234 after it); no tag → the binary's own
# version with the commit count (which only grows, so each build upgrades the one before).
sha=$(git rev-parse --short HEAD)
if [ -z "${VERSION:-}" ]; then
  if tag=$(git describe --tags --abbrev=0 2>/dev/null); then
    n=$(git rev-list --count "$tag"..HEAD)
    VERSION=${tag#v}; [ "$n" -eq 0 ] || VERSION="$VERSION+git$n.$sha"
  else
    VERSION="$("$BIN" --version)+git$(git rev-list --count HEAD).$sha"
  fi
fi
[[ "$VERSION" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "'$VERSION' is not a Debian version (a digit first; then letters, digits, . + ~)"
MAINTAINER=${MAINTAINER:-$(git log -1 --format='%an <%ae>')}
# File dates and the man pages' date from the commit: the same commit builds the same package.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PKG="$WORK/pkg"
bash scripts/install.sh "$BIN_DIR" /usr "$PKG" >/dev/null
rm "$PKG/usr/share/cinegraph/install-manifest"   # dpkg keeps its own list of the files
# Stripped (debug info is most of its size), and with no RUNPATH: the release build carries the
# Swift runtime inside and finds everything else in Debian's library folders (lintian:
# custom-library-search-path).
strip --strip-unneeded --remove-section=.comment "$PKG/usr/bin/cinegraph"
patchelf --remove-rpath "$PKG/usr/bin/cinegraph"
DOC="$PKG/usr/share/doc/cinegraph"
# A native package's changelog (lintian: no-changelog is an error).
{
  echo "cinegraph ($VERSION) unstable; urgency=medium"
  echo
  echo "  * Built from commit $sha by scripts/make-deb.sh."
  echo
  echo " -- $MAINTAINER  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$DOC/changelog.gz"
# libLiteRt.so is a library, not a program: no execute bit.
chmod 644 "$PKG/usr/lib/cinegraph/libLiteRt.so"
# Swift packages link statically; Yams carries libyaml's C sources, so libyaml is inside the
# binary and cannot be Debian's libyaml-0-2.
mkdir -p "$PKG/usr/share/lintian/overrides"
cat > "$PKG/usr/share/lintian/overrides/cinegraph" <<'EOF'
# Yams (the graph config parser, a Swift package linked statically) includes libyaml's sources.
cinegraph: embedded-library libyaml [usr/bin/cinegraph]
EOF
find "$PKG" -type d -exec chmod 755 {} +

# Depends: the package of every library the binary and LiteRT (loaded with dlopen) link. A library
# no Debian package provides (the Swift runtime from a toolchain: a build without
# --static-swift-stdlib) would be missing on the user's machine; ALLOW_UNPACKAGED_LIBS=1 lets it
# through for trying the packaging with a test build.
owner() {  # library path → package, trying the path as ldd shows it and its /usr (merged) twin
  local p
  for p in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1 && return 0
  done
  return 1
}
deps=(libgstreamer1.0-0 libgstreamer-plugins-base1.0-0 libpng16-16 libturbojpeg0
  gstreamer1.0-plugins-base    # appsrc/appsink, videoconvert, audioconvert, opusenc
  gstreamer1.0-plugins-good    # matroska, mp4mux, jpeg, png, flac, vp8, v4l2src/v4l2sink
  gstreamer1.0-plugins-bad     # srtsrc/srtsink, h264parse, x265enc
  gstreamer1.0-plugins-ugly    # x264enc
  gstreamer1.0-libav)          # decoding what decodebin meets (cinegraph stabilize, inspect)
for file in "$BIN" "$PKG/usr/lib/cinegraph/libLiteRt.so"; do
  libs=$(ldd "$file")
  for lib in $(objdump -p "$file" | awk '$1 == "NEEDED" { print $2 }'); do   # direct needs only
    path=$(awk -v l="$lib" '$1 == l && $2 == "=>" { print $3 } $1 ~ "/" l "$" { print $1 }' <<< "$libs" | head -1)
    case "$path" in
      /*) ;;
      *) die "$file needs $lib, which is not on this machine" ;;
    esac
    if pkg=$(owner "$path"); then deps+=("$pkg")
    elif [ "${ALLOW_UNPACKAGED_LIBS:-}" = 1 ]; then echo "make-deb: warning: $path is in no Debian package (ALLOW_UNPACKAGED_LIBS=1)" >&2
    else die "$file links $path, which no Debian package provides: build with --static-swift-stdlib (make release), or ALLOW_UNPACKAGED_LIBS=1 to package it anyway"; fi
  done
done
DEPENDS=$(printf '%s\n' "${deps[@]}" | sort -u | paste -sd, | sed 's/,/, /g')

mkdir -p "$PKG/DEBIAN"
cat > "$PKG/DEBIAN/control" <<EOF
Package: cinegraph
Version: $VERSION
Architecture: amd64
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
Depends: $DEPENDS
Recommends: v4l2loopback-dkms, opencv-data, gstreamer1.0-pulseaudio | gstreamer1.0-alsa
Suggests: gstreamer1.0-x
Section: video
Priority: optional
Description: cinematic-mode video for Linux cameras
 cinegraph runs declarative processing graphs on camera video: stereo disparity
 or a person matte, face detection and tracking with learned models (LiteRT),
 automatic rack focus, synthetic depth of field, recording into an editable
 cinematic asset, a web viewfinder and a virtual webcam for video calls.
 .
 Start with "cinegraph demo" in an empty folder; the example graphs are in
 /usr/share/cinegraph/graphs. The virtual webcam runs as a systemd user service
 (cinegraph-webcam) and needs the v4l2loopback module.
EOF
(cd "$PKG" && find usr -type f -printf '%P\n' | sort | sed 's|^|usr/|' | xargs md5sum) > "$PKG/DEBIAN/md5sums"
DEB="$OUTDIR/cinegraph_${VERSION}_amd64.deb"
dpkg-deb --root-owner-group --build "$PKG" "$DEB" >/dev/null
echo "make-deb: built $DEB ($(du -h "$DEB" | cut -f1)); Depends: $DEPENDS"

# lintian: errors fail the build; warnings are listed.
if command -v lintian >/dev/null; then
  report=$(lintian --tag-display-limit 0 "$DEB" 2>&1 | grep -v 'running with root privileges' || true)
  [ -z "$report" ] || echo "$report" | sed 's/^/  lintian: /'
  ! grep -q '^E:' <<< "$report" || die "lintian reports errors"
  echo "make-deb: lintian: no errors"
else
  echo "make-deb: lintian is not installed (apt install lintian): not checked"
fi

# It installs: dpkg unpacks it into a throwaway root (its own package database; the root has no
# GStreamer, hence --force-depends), lists it, and the unpacked binary runs.
ROOT="$WORK/root"
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
touch "$ROOT/var/lib/dpkg/status" "$ROOT/var/lib/dpkg/available"
dpkg --root="$ROOT" --log=/dev/null --force-depends --force-not-root -i "$DEB" > "$WORK/dpkg.log" 2>&1 || true
dpkg --root="$ROOT" -s cinegraph 2>/dev/null | grep -q '^Status: install ok installed' ||
  { cat "$WORK/dpkg.log" >&2; die "dpkg -i into a throwaway root did not install it"; }
# (A test build's binary needs the toolchain's runtime, whose RUNPATH was removed: not run.)
[ "${ALLOW_UNPACKAGED_LIBS:-}" = 1 ] || "$ROOT/usr/bin/cinegraph" --version >/dev/null || die "the unpacked binary does not run"
echo "make-deb: installs with dpkg -i ($(dpkg --root="$ROOT" -L cinegraph | wc -l) paths); check with: dpkg-deb --info $DEB; dpkg-deb --contents $DEB"
