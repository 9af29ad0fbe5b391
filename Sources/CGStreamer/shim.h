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

// --- CineGStreamer additions -------------------------------------------------------------
static inline gboolean cg_is_bin(GstElement *e) { return GST_IS_BIN(e); }
static inline gboolean cg_is_app_sink(GstElement *e) { return GST_IS_APP_SINK(e); }
static inline gboolean cg_is_app_src(GstElement *e) { return GST_IS_APP_SRC(e); }
static inline const gchar *cg_element_name(GstElement *e) { return GST_OBJECT_NAME(e); }
static inline guint64 cg_buffer_duration(GstBuffer *b) { return GST_BUFFER_DURATION(b); }
static inline void cg_object_set_string(gpointer o, const char *name, const char *v) { g_object_set(o, name, v, NULL); }
static inline void cg_object_set_from_string(gpointer o, const char *name, const char *v) {
    gst_util_set_object_arg(G_OBJECT(o), name, v);
}
static inline guint8 *cg_video_frame_plane_data(GstVideoFrame *f, int plane) { return (guint8 *)f->data[plane]; }
static inline gint cg_video_frame_plane_stride(GstVideoFrame *f, int plane) { return GST_VIDEO_FRAME_PLANE_STRIDE(f, plane); }
static inline guint cg_video_frame_n_planes(GstVideoFrame *f) { return GST_VIDEO_FRAME_N_PLANES(f); }
static inline gulong cg_signal_connect(gpointer instance, const char *signal, GCallback handler, gpointer data,
                                       GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}

/// Sends EOS to every source element of `bin` (recursively, so sources inside sub-bins too) except `except`,
/// which the caller ends in its own way (an appsrc's queued end-of-stream keeps its queued buffers).
static inline void cg_send_eos_to_element_sources(GstElement *element, GstElement *except);
static inline void cg_send_eos_foreach(const GValue *item, gpointer except) {
    GstElement *child = GST_ELEMENT(g_value_get_object(item));
    cg_send_eos_to_element_sources(child, (GstElement *)except);
}
static inline void cg_send_eos_to_element_sources(GstElement *element, GstElement *except) {
    if (element == except) return;
    if (GST_IS_BIN(element)) {
        GstIterator *it = gst_bin_iterate_sources(GST_BIN(element));
        while (gst_iterator_foreach(it, cg_send_eos_foreach, except) == GST_ITERATOR_RESYNC) gst_iterator_resync(it);
        gst_iterator_free(it);
        return;
    }
    gst_element_send_event(element, gst_event_new_eos());
}

/// Sends EOS to every source element of `bin` that is not an appsrc (a live microphone, say):
/// appsrcs are ended by their writers so that their queued buffers are kept.
static inline void cg_send_eos_to_live_sources(GstElement *element);
static inline void cg_send_eos_live_foreach(const GValue *item, gpointer unused) {
    (void)unused;
    cg_send_eos_to_live_sources(GST_ELEMENT(g_value_get_object(item)));
}
static inline void cg_send_eos_to_live_sources(GstElement *element) {
    if (GST_IS_BIN(element)) {
        GstIterator *it = gst_bin_iterate_sources(GST_BIN(element));
        while (gst_iterator_foreach(it, cg_send_eos_live_foreach, NULL) == GST_ITERATOR_RESYNC) gst_iterator_resync(it);
        gst_iterator_free(it);
        return;
    }
    if (GST_IS_APP_SRC(element)) return;
    gst_element_send_event(element, gst_event_new_eos());
}

/// The running time of `element`'s pipeline now (clock time minus base time), or -1 without a clock.
static inline gint64 cg_element_running_time(GstElement *element) {
    GstClock *clock = gst_element_get_clock(element);
    if (clock == NULL) return -1;
    GstClockTime now = gst_clock_get_time(clock);
    gst_object_unref(clock);
    GstClockTime base = gst_element_get_base_time(element);
    return now >= base ? (gint64)(now - base) : 0;
}

/// A buffer probe that starts a live stream at a moment chosen later and ends it at another:
/// `data` points at two gint64, the start (a running time; G_MAXINT64 while unknown) and the end
/// (relative to the start; G_MAXINT64 while open). Buffers before the start are dropped; later
/// ones are re-stamped relative to it, so the stream's time 0 is that moment; buffers from the
/// end on are dropped. The third gint64 receives the end of the latest buffer seen (relative).
static inline GstPadProbeReturn cg_time_shift_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    gint64 start = __atomic_load_n((gint64 *)data, __ATOMIC_ACQUIRE);
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (start == G_MAXINT64 || buffer == NULL || !GST_BUFFER_PTS_IS_VALID(buffer)) return GST_PAD_PROBE_DROP;
    GstClockTime pts = GST_BUFFER_PTS(buffer);
    if ((gint64)pts < start) return GST_PAD_PROBE_DROP;
    gint64 end = __atomic_load_n(((gint64 *)data) + 1, __ATOMIC_ACQUIRE);
    gint64 relative = (gint64)(pts - (GstClockTime)start);
    gint64 seen = relative + (GST_BUFFER_DURATION_IS_VALID(buffer) ? (gint64)GST_BUFFER_DURATION(buffer) : 0);
    __atomic_store_n(((gint64 *)data) + 2, seen, __ATOMIC_RELEASE);
    if (relative >= end) return GST_PAD_PROBE_DROP;
    buffer = gst_buffer_make_writable(buffer);
    GST_BUFFER_PTS(buffer) = pts - (GstClockTime)start;
    GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    return GST_PAD_PROBE_OK;
}

/// Stores `value` at `p` for the probe above to read.
static inline void cg_atomic_store_int64(gint64 *p, gint64 value) { __atomic_store_n(p, value, __ATOMIC_RELEASE); }

/// Reads what the probe above stored.
static inline gint64 cg_atomic_load_int64(gint64 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/// Installs buffer probe `probe` with `data` on the src pad of `element`.
static inline gboolean cg_install_src_probe(GstElement *element, GstPadProbeCallback probe, gpointer data) {
    GstPad *pad = gst_element_get_static_pad(element, "src");
    if (pad == NULL) return FALSE;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, probe, data, NULL);
    gst_object_unref(pad);
    return TRUE;
}

/// Installs ``cg_time_shift_probe`` on the src pad of `element`.
static inline gboolean cg_install_time_shift(GstElement *element, gint64 *start) {
    return cg_install_src_probe(element, cg_time_shift_probe, start);
}

/// A buffer probe that drops buffers stamped before the time `data` points at (a gint64,
/// read atomically): put before a decoder whose every frame is a keyframe, so that after a seek
/// the frames before the wanted one are never decoded.
static inline GstPadProbeReturn cg_skip_before_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    gint64 target = __atomic_load_n((gint64 *)data, __ATOMIC_ACQUIRE);
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (buffer == NULL || !GST_BUFFER_PTS_IS_VALID(buffer)) return GST_PAD_PROBE_OK;
    return (gint64)GST_BUFFER_PTS(buffer) < target ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/// Installs ``cg_skip_before_probe`` on the src pad of `element`.
static inline gboolean cg_install_skip_before(GstElement *element, gint64 *target) {
    return cg_install_src_probe(element, cg_skip_before_probe, target);
}

#endif
