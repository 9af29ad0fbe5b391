// Shim over GStreamer for Swift: the headers, plus typed inline helpers for the
// macros and variadic functions that Swift cannot import.
#ifndef CINEGRAPH_CGSTREAMER_SHIM_H
#define CINEGRAPH_CGSTREAMER_SHIM_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

static const guint64 CG_SECOND = GST_SECOND;
static const guint64 CG_CLOCK_TIME_NONE = GST_CLOCK_TIME_NONE;
static const GstMessageType CG_MESSAGE_ERROR_OR_EOS = (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
static const GstMessageType CG_MESSAGE_ANY_PROBLEM =
    (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_WARNING);

static inline GstAppSink *cg_app_sink(GstElement *e) { return GST_APP_SINK(e); }
static inline GstAppSrc *cg_app_src(GstElement *e) { return GST_APP_SRC(e); }
static inline GstBin *cg_bin(GstElement *e) { return GST_BIN(e); }
static inline GstObject *cg_object(gpointer p) { return GST_OBJECT(p); }
static inline GstMessageType cg_message_type(GstMessage *m) { return GST_MESSAGE_TYPE(m); }
static inline const gchar *cg_message_source_name(GstMessage *m) {
    return GST_MESSAGE_SRC(m) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(m)) : "(unknown)";
}
static inline guint64 cg_buffer_pts(GstBuffer *b) { return GST_BUFFER_PTS(b); }
static inline void cg_buffer_set_pts(GstBuffer *b, guint64 pts) { GST_BUFFER_PTS(b) = pts; }
static inline void cg_buffer_set_duration(GstBuffer *b, guint64 d) { GST_BUFFER_DURATION(b) = d; }
static inline void cg_object_set_bool(gpointer o, const char *name, gboolean v) { g_object_set(o, name, v, NULL); }
static inline void cg_object_set_int(gpointer o, const char *name, gint v) { g_object_set(o, name, v, NULL); }
static inline void cg_object_set_uint64(gpointer o, const char *name, guint64 v) { g_object_set(o, name, v, NULL); }
static inline void cg_object_set_caps(gpointer o, const char *name, GstCaps *caps) { g_object_set(o, name, caps, NULL); }
static inline void cg_device_monitor_add_filter(GstDeviceMonitor *m, const char *klass) {
    gst_device_monitor_add_filter(m, klass, NULL);
}
static inline const GstVideoFormatInfo *cg_video_info_format_info(const GstVideoInfo *info) { return info->finfo; }
static inline GstVideoFormat cg_video_info_format(const GstVideoInfo *info) { return GST_VIDEO_INFO_FORMAT(info); }
static inline gint cg_video_info_stride(const GstVideoInfo *info, int plane) { return GST_VIDEO_INFO_PLANE_STRIDE(info, plane); }
static inline gsize cg_video_info_offset(const GstVideoInfo *info, int plane) { return GST_VIDEO_INFO_PLANE_OFFSET(info, plane); }
static inline gint cg_video_info_fps_n(const GstVideoInfo *info) { return GST_VIDEO_INFO_FPS_N(info); }
static inline gint cg_video_info_fps_d(const GstVideoInfo *info) { return GST_VIDEO_INFO_FPS_D(info); }
static inline gint cg_video_info_width(const GstVideoInfo *info) { return GST_VIDEO_INFO_WIDTH(info); }
static inline gint cg_video_info_height(const GstVideoInfo *info) { return GST_VIDEO_INFO_HEIGHT(info); }
static inline const gchar *cg_plugin_feature_name(GstElementFactory *f) { return GST_OBJECT_NAME(f); }

#endif
