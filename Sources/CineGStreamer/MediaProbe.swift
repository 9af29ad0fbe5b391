// MediaProbe: decodes a movie file to count its frames and find its size, duration and audio.
import CGStreamer
import CineMedia
import Synchronization

/// Reads facts about a movie by decoding all of it (`uridecodebin` → `appsink sync=false`), so
/// that what it reports — frame count above all — is what a player would show.
public enum MediaProbe {
    /// Decodes the movie at `path` and describes it.
    ///
    /// - Parameter timeout: the longest wait for any one frame before giving up.
    /// - Throws: ``GStreamerError`` when the file is missing or cannot be decoded, or decoding
    ///   stalls.
    public static func inspect(path: String, timeout: Double = 10) throws -> MediaInfo {
        try GStreamer.initialize()
        var uriError: UnsafeMutablePointer<GError>?
        guard let uri = GLibString.take(gst_filename_to_uri(path, &uriError)) else {
            let message = uriError.map { String(cString: $0.pointee.message) } ?? "invalid path"
            if let uriError { g_error_free(uriError) }
            throw GStreamerError(element: nil, message: "cannot inspect \"\(path)\": \(message)")
        }
        let pipeline = try Pipeline(
            "uridecodebin name=dec uri=\"\(uri)\"  "
                + "appsink name=sink sync=false max-buffers=4 enable-last-sample=false caps=video/x-raw")
        guard let decoder = pipeline.child(named: "dec"), let sink = pipeline.child(named: "sink") else {
            throw GStreamerError(element: nil, message: "the probe pipeline lacks its decoder or sink")
        }
        defer {
            pipeline.stop()
            gst_object_unref(decoder)
            gst_object_unref(sink)
        }
        let linker = StreamLinker(pipeline: pipeline.element, videoSink: sink)
        linker.connect(to: decoder)
        try pipeline.play()

        var count = 0
        var first: Int64?, last: Int64 = 0, end: Int64 = 0
        var width = 0, height = 0
        var fps: Double?
        var waited = 0.0
        let slice = 0.1
        // A file with a header but no frames (an MP4 cut short before its first fragment) can
        // make decodebin drop qtdemux's "no playable streams" error, and then nothing happens;
        // a local file exposes its video within this time or never.
        let videoDeadline = ContinuousClock.now + .milliseconds(Int64(min(timeout, 3) * 1000))
        while true {
            try pipeline.checkForErrors()
            guard let sample = gst_app_sink_try_pull_sample(cg_app_sink(sink), GstClockTime(slice * 1e9)) else {
                if gst_app_sink_is_eos(cg_app_sink(sink)) != 0 { break }
                if linker.hasNoVideo { break }
                if !linker.hasVideo && ContinuousClock.now >= videoDeadline {
                    throw GStreamerError(
                        element: "dec",
                        message: "no video could be decoded from \"\(path)\" (a recording cut short before its "
                            + "first fragment has a header but no frames)")
                }
                waited += slice
                if waited >= timeout {
                    try pipeline.checkForErrors()
                    throw GStreamerError(
                        element: "dec",
                        message: "decoding \"\(path)\" stalled: no frame for "
                            + "\(timeout) s after frame \(count)")
                }
                continue
            }
            waited = 0
            defer { gst_sample_unref(sample) }
            if count == 0, let caps = gst_sample_get_caps(sample) {
                var info = GstVideoInfo()
                gst_video_info_init(&info)
                if gst_video_info_from_caps(&info, caps) != 0 {
                    width = Int(cg_video_info_width(&info))
                    height = Int(cg_video_info_height(&info))
                    let n = cg_video_info_fps_n(&info), d = cg_video_info_fps_d(&info)
                    fps = n > 0 && d > 0 ? Double(n) / Double(d) : nil
                }
            }
            guard let buffer = gst_sample_get_buffer(sample) else { continue }
            count += 1
            let pts = cg_buffer_pts(buffer)
            let duration = cg_buffer_duration(buffer)
            if pts != CG_CLOCK_TIME_NONE {
                last = Int64(pts)
                if first == nil { first = last }
                let length = duration != CG_CLOCK_TIME_NONE ? Int64(duration) : Int64((1e9 / (fps ?? 30)).rounded())
                end = max(end, last + length)
            }
        }
        return MediaInfo(
            width: width, height: height, frameCount: count, durationSeconds: Double(end) / 1e9,
            lastTimestamp: Timestamp(nanoseconds: last),
            firstTimestamp: Timestamp(nanoseconds: first ?? 0), framesPerSecond: fps,
            hasAudio: linker.hasAudio)
    }
}

/// Links the decoder's streams as they appear: the first video stream to the appsink, every
/// other stream to a fakesink of its own (so none stalls the decoder), noting audio on the way.
private final class StreamLinker: @unchecked Sendable {
    private struct Found {
        var hasAudio = false
        var videoLinked = false
        var noMorePads = false
        var drained = false
    }
    /// The bin that new fakesinks join; borrowed — the pipeline outlives its signal handlers.
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let videoPad: UnsafeMutablePointer<GstPad>
    private let found = Mutex(Found())

    init(pipeline: UnsafeMutablePointer<GstElement>, videoSink: UnsafeMutablePointer<GstElement>) {
        self.pipeline = pipeline
        self.videoPad = gst_element_get_static_pad(videoSink, "sink")
    }

    deinit { gst_object_unref(videoPad) }

    /// Whether a video stream has been linked to the appsink.
    var hasVideo: Bool { found.withLock { $0.videoLinked } }

    /// Whether an audio stream appeared.
    var hasAudio: Bool { found.withLock { $0.hasAudio } }

    /// Whether the decoder has exposed all its streams, or has run out of data, and no video
    /// stream came (a file cut short before its first fragment has a track but no frames).
    var hasNoVideo: Bool { found.withLock { ($0.noMorePads || $0.drained) && !$0.videoLinked } }

    /// Connects `pad-added`, `no-more-pads` and `drained` of `decoder`; each handler holds a reference to
    /// the linker, released when the decoder goes away.
    func connect(to decoder: UnsafeMutablePointer<GstElement>) {
        let padAdded:
            @convention(c) (
                UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?,
                gpointer?
            ) -> Void = { _, pad, context in
                guard let pad, let context else { return }
                Unmanaged<StreamLinker>.fromOpaque(context).takeUnretainedValue().link(pad)
            }
        let noMorePads: @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { _, context in
            guard let context else { return }
            Unmanaged<StreamLinker>.fromOpaque(context).takeUnretainedValue().found.withLock { $0.noMorePads = true }
        }
        let drained: @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { _, context in
            guard let context else { return }
            Unmanaged<StreamLinker>.fromOpaque(context).takeUnretainedValue().found.withLock { $0.drained = true }
        }
        let release: GClosureNotify = { context, _ in
            if let context { Unmanaged<StreamLinker>.fromOpaque(context).release() }
        }
        cg_signal_connect(
            decoder, "pad-added", unsafeBitCast(padAdded, to: GCallback.self),
            Unmanaged.passRetained(self).toOpaque(), release)
        cg_signal_connect(
            decoder, "no-more-pads", unsafeBitCast(noMorePads, to: GCallback.self),
            Unmanaged.passRetained(self).toOpaque(), release)
        cg_signal_connect(
            decoder, "drained", unsafeBitCast(drained, to: GCallback.self),
            Unmanaged.passRetained(self).toOpaque(), release)
    }

    /// Links one new decoder pad (called on a streaming thread).
    private func link(_ pad: UnsafeMutablePointer<GstPad>) {
        let caps = gst_pad_get_current_caps(pad) ?? gst_pad_query_caps(pad, nil)
        var media = ""
        if let caps {
            if gst_caps_get_size(caps) > 0, let name = gst_structure_get_name(gst_caps_get_structure(caps, 0)) {
                media = String(cString: name)
            }
            gst_caps_unref(caps)
        }
        let isVideo = media.hasPrefix("video/")
        let takeVideo = found.withLock { f -> Bool in
            if media.hasPrefix("audio/") { f.hasAudio = true }
            guard isVideo && !f.videoLinked else { return false }
            f.videoLinked = true
            return true
        }
        if takeVideo, gst_pad_link(pad, videoPad) == GST_PAD_LINK_OK { return }
        guard let sink = gst_element_factory_make("fakesink", nil) else { return }
        cg_object_set_bool(sink, "sync", 0)
        cg_object_set_bool(sink, "async", 0)
        _ = gst_bin_add(cg_bin(pipeline), sink)
        _ = gst_element_sync_state_with_parent(sink)
        if let sinkPad = gst_element_get_static_pad(sink, "sink") {
            _ = gst_pad_link(pad, sinkPad)
            gst_object_unref(sinkPad)
        }
    }
}
