// AppSinkReader: pulls decoded frames out of an appsink into pooled Images.
import CGStreamer
import CineMedia

/// Pulls frames from an `appsink` in a ``Pipeline`` and copies each into an ``Image`` from an
/// ``ImagePool``, in ``PixelFormat``'s layout.
///
/// The appsink's caps must be raw video in a format ``PixelFormat`` knows (`I420`, `NV12`,
/// `RGBA`, `GRAY8`, `GRAY16_LE`); put `videoconvert ! video/x-raw,format=...` before it if the
/// source may produce others. In a steady stream the pool's buffers are reused, so reading
/// allocates no pixel memory. Use one reader from one thread at a time.
public final class AppSinkReader: @unchecked Sendable {
    /// The pipeline the appsink lives in (kept alive by the reader).
    public let pipeline: Pipeline
    /// The pool that frames are copied into.
    public let pool: ImagePool
    /// How many frames ``next(timeout:)`` has returned.
    public private(set) var framesRead = 0
    /// The frame rate from the caps of the last frame, when the caps state one.
    public private(set) var frameRate: Double?

    private let sink: UnsafeMutablePointer<GstElement>
    private let sinkName: String
    /// The caps of the last sample and what they say; samples of one negotiation share caps.
    private var currentCaps: UnsafeMutablePointer<GstCaps>?
    private var info = GstVideoInfo()
    private var format: PixelFormat = .i420

    /// Reads from the appsink called `name` in `pipeline`.
    ///
    /// - Throws: ``GStreamerError`` when `pipeline` has no element called `name`, or it is not
    ///   an appsink.
    public init(pipeline: Pipeline, name: String = "sink", pool: ImagePool = ImagePool()) throws {
        guard let element = pipeline.child(named: name) else {
            throw GStreamerError(
                element: name, message: "the pipeline has no element named \"\(name)\"",
                debug: pipeline.description)
        }
        guard cg_is_app_sink(element) != 0 else {
            gst_object_unref(element)
            throw GStreamerError(
                element: name, message: "element \"\(name)\" is not an appsink",
                debug: pipeline.description)
        }
        self.pipeline = pipeline
        self.pool = pool
        self.sink = element
        self.sinkName = name
    }

    deinit {
        if let currentCaps { gst_caps_unref(currentCaps) }
        gst_object_unref(sink)
    }

    /// Waits up to `seconds` for the next frame.
    ///
    /// - Returns: the frame with its buffer's presentation timestamp, `.timeout`, or
    ///   `.endOfStream` once the appsink has delivered its last frame.
    /// - Throws: the pipeline's error, or an error when the frame's format is not one
    ///   ``PixelFormat`` knows.
    public func next(timeout seconds: Double) throws -> ReadResult {
        switch try next(timeout: seconds, copyIf: { _ in true }) {
        case .frame(let image?, let t): return .frame(image, t)
        case .frame(nil, _), .timeout: return .timeout
        case .endOfStream: return .endOfStream
        }
    }

    /// What ``next(timeout:copyIf:)`` read: a frame, its pixels only when they were copied.
    public enum Pull: Sendable {
        case frame(Image?, Timestamp)
        case timeout
        case endOfStream
    }

    /// Waits up to `seconds` for the next frame, and copies its pixels only when `keep` says so
    /// for its timestamp (a seek decoding its way to a frame skips the copies it would discard).
    public func next(timeout seconds: Double, copyIf keep: (Timestamp) -> Bool) throws -> Pull {
        // A source that fails (a camera unplugged, a file cut short) posts its error and then
        // sends end-of-stream: the pull throws the error, so end-of-stream here is a normal end.
        guard let sample = try pipeline.pullSample(from: sink, timeout: seconds) else {
            return gst_app_sink_is_eos(cg_app_sink(sink)) != 0 ? .endOfStream : .timeout
        }
        defer { gst_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample), let caps = gst_sample_get_caps(sample) else {
            return .timeout
        }
        try adopt(caps)
        let pts = cg_buffer_pts(buffer)
        let timestamp: Timestamp
        if pts != CG_CLOCK_TIME_NONE {
            timestamp = Timestamp(nanoseconds: Int64(pts))
        } else {
            timestamp = Timestamp(frame: framesRead, fps: frameRate ?? 30)
        }
        framesRead += 1
        return .frame(keep(timestamp) ? try copy(buffer) : nil, timestamp)
    }

    /// Parses `caps` when they differ from the last frame's.
    private func adopt(_ caps: UnsafeMutablePointer<GstCaps>) throws {
        if caps == currentCaps { return }
        var parsed = GstVideoInfo()
        gst_video_info_init(&parsed)
        guard gst_video_info_from_caps(&parsed, caps) != 0 else {
            throw GStreamerError(
                element: sinkName, message: "the appsink's caps are not raw video",
                debug: GLibString.take(gst_caps_to_string(caps)))
        }
        let name = GLibString.borrow(gst_video_format_to_string(cg_video_info_format(&parsed))) ?? "?"
        guard let known = PixelFormat(gstreamerName: name) else {
            throw GStreamerError(
                element: sinkName,
                message: "frames in format \(name) cannot become Images; put videoconvert ! "
                    + "video/x-raw,format=I420 (or NV12, RGBA, GRAY8, GRAY16_LE) before the appsink")
        }
        if let currentCaps { gst_caps_unref(currentCaps) }
        currentCaps = gst_caps_ref(caps)
        info = parsed
        format = known
        let n = cg_video_info_fps_n(&parsed), d = cg_video_info_fps_d(&parsed)
        frameRate = n > 0 && d > 0 ? Double(n) / Double(d) : nil
    }

    /// Copies the pixels of `buffer` into a pooled image.
    /// Cost: one pass over the frame's bytes — one memcpy when GStreamer's planes lie exactly
    /// where ``PixelFormat/layout(width:height:)`` puts them, else one memcpy per row.
    private func copy(_ buffer: UnsafeMutablePointer<GstBuffer>) throws -> Image {
        var frame = GstVideoFrame()
        guard gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ) != 0 else {
            throw GStreamerError(element: sinkName, message: "could not map a video buffer for reading")
        }
        defer { gst_video_frame_unmap(&frame) }
        let width = Int(cg_video_info_width(&info)), height = Int(cg_video_info_height(&info))
        let image = pool.makeImage(width: width, height: height, format: format)
        let layout = image.layout
        let planes = format.planeCount
        guard let base = cg_video_frame_plane_data(&frame, 0) else {
            throw GStreamerError(element: sinkName, message: "a video buffer has no pixel data")
        }
        var sameLayout = true
        for p in 0..<planes {
            let data = cg_video_frame_plane_data(&frame, Int32(p))
            if Int(cg_video_frame_plane_stride(&frame, Int32(p))) != layout.strides[p]
                || data != base + layout.offsets[p]
            {
                sameLayout = false
            }
        }
        let destination = image.buffer.baseAddress + image.byteOffset
        if sameLayout {
            destination.copyMemory(from: base, byteCount: layout.byteCount)
            return image
        }
        for p in 0..<planes {
            guard let source = cg_video_frame_plane_data(&frame, Int32(p)) else { continue }
            let sourceStride = Int(cg_video_frame_plane_stride(&frame, Int32(p)))
            let plane = image.plane(p)
            let rowBytes = plane.width * plane.bytesPerSample
            for y in 0..<plane.height {
                plane.row(y).copyMemory(from: source + y * sourceStride, byteCount: rowBytes)
            }
        }
        return image
    }
}
