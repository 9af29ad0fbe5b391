// CImageCodecs: the still-image codecs cinegraph's tools read files with, without a GStreamer
// pipeline per image — libpng's simplified API and libjpeg-turbo's TurboJPEG API.
#ifndef CINEGRAPH_IMAGE_CODECS_H
#define CINEGRAPH_IMAGE_CODECS_H
#include <png.h>
#include <turbojpeg.h>

/// PNG_IMAGE_VERSION and the format flags are macros Swift may not import as constants.
static const png_uint_32 cg_png_image_version = PNG_IMAGE_VERSION;
static const png_uint_32 cg_png_format_gray = PNG_FORMAT_GRAY;
static const png_uint_32 cg_png_format_rgba = PNG_FORMAT_RGBA;

/// Whether libpng reported a failure (bit 1 of `warning_or_error`).
static inline int cg_png_failed(const png_image *image) { return PNG_IMAGE_FAILED(*image); }
#endif
