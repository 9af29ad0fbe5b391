// AppSrcWriter: pushes Images into an appsrc without copying their pixels.
import CGStreamer
import CineMedia

/// Pushes ``Image``s into an `appsrc` in a ``Pipeline``.
///
/// The writer sets the appsrc's caps from the format, size and frame rate, `format=time`, and a
/// small queue (`max-bytes` of three frames). Pushing is zero-copy: the buffer wraps the image's
/// ``PixelBuffer`` memory (read-only) and keeps the buffer retained until GStreamer releases it;
/// only an image that is not contiguous (a crop) is copied first. When the queue is full,
/// ``push(_:at:)`` waits — that is the backpressure that paces offline writing — while watching
/// the bus, so an error ends the wait with a thrown error rather than a hang.
/// Use one writer from one thread at a time.
public final class AppSrcWriter: @unchecked Sendable {
    /// The pipeline the appsrc lives in (kept alive by the writer).
    public let pipeline: Pipeline
    /// The pixel format of the frames.
    public let format: PixelFormat
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames per second, used for the caps and each buffer's duration.
    public let fps: Double
    /// How many frames have been pushed.
    public private(set) var framesPushed = 0

    /// How long a full queue may stay full before ``push(_:at:)`` gives up.
    var stallTimeout: Duration = .seconds(30)

    private let src: UnsafeMutablePointer<GstElement>
    private let name: String
    private let frameDuration: GstClockTime
    private let maxBytes: UInt
    /// Buffers for copies of images that are not contiguous.
    private let copies = ImagePool(limit: 8)
    private var ended = false

    /// Writes to the appsrc called `name` in `pipeline`, configuring its caps for frames of
    /// `format`, `width` × `height` at `fps`.
    ///
    /// - Throws: ``GStreamerError`` when there is no such appsrc or `format` has no GStreamer
    ///   equivalent.
    public init(
        pipeline: Pipeline, name: String = "src", format: PixelFormat, width: Int, height: Int,
        fps: Double
    ) throws {
        guard let caps = format.gstreamerName else {
            throw GStreamerError(element: name, message: "pixel format \(format) cannot be sent to GStreamer")
        }
        guard width > 0, height > 0, fps > 0 else {
            throw GStreamerError(element: name, message: "invalid video size \(width)x\(height) at \(fps) fps")
        }
        guard let element = pipeline.child(named: name) else {
            throw GStreamerError(
                element: name, message: "the pipeline has no element named \"\(name)\"",
                debug: pipeline.description)
        }
        guard cg_is_app_src(element) != 0 else {
            gst_object_unref(element)
            throw GStreamerError(
                element: name, message: "element \"\(name)\" is not an appsrc",
                debug: pipeline.description)
        }
        self.pipeline = pipeline
        self.format = format
        self.width = width
        self.height = height
        self.fps = fps
        self.src = element
        self.name = name
        self.frameDuration = GstClockTime((1e9 / fps).rounded())
        self.maxBytes = UInt(3 * format.layout(width: width, height: height).byteCount)

        var numerator: gint = 0, denominator: gint = 0
        gst_util_double_to_fraction(fps, &numerator, &denominator)
        let description =
            "video/x-raw,format=\(caps),width=\(width),height=\(height),"
            + "framerate=\(numerator)/\(denominator),pixel-aspect-ratio=1/1"
        let gstCaps = gst_caps_from_string(description)
        gst_app_src_set_caps(cg_app_src(src), gstCaps)
        if let gstCaps { gst_caps_unref(gstCaps) }
        cg_object_set_from_string(src, "format", "time")
        cg_object_set_bool(src, "block", 1)
        gst_app_src_set_max_bytes(cg_app_src(src), guint64(maxBytes))
    }

    deinit {
        gst_object_unref(src)
    }

    /// Pushes `image` with presentation timestamp `timestamp` and a duration of one frame.
    ///
    /// Waits while the appsrc's queue is full.
    /// - Throws: the pipeline's error; an error when the image does not match the writer's
    ///   format and size, the timestamp is negative, the stream has ended, or the queue stays
    ///   full for 30 s.
    public func push(_ image: Image, at timestamp: Timestamp) throws {
        guard timestamp.nanoseconds >= 0 else {
            throw GStreamerError(element: name, message: "cannot push a frame at negative time \(timestamp)")
        }
        try push(image, presentationTime: GstClockTime(timestamp.nanoseconds))
    }

    /// Pushes `image` at `presentationTime`, or without a timestamp (for an appsrc with
    /// `do-timestamp=true`, which stamps it with the running time) when `nil`.
    func push(_ image: Image, presentationTime: GstClockTime?) throws {
        guard !ended else {
            throw GStreamerError(element: name, message: "cannot push a frame after end-of-stream")
        }
        guard image.width == width, image.height == height, image.format == format else {
            throw GStreamerError(
                element: name,
                message: "frame is \(image.width)x\(image.height) \(image.format), but the appsrc was set up "
                    + "for \(width)x\(height) \(format)")
        }
        try pipeline.checkForErrors()
        try waitForRoom()

        let frame = image.isContiguous ? image : image.copy(using: copies)
        let byteCount = frame.layout.byteCount
        let retained = Unmanaged.passRetained(frame.buffer).toOpaque()
        let wrapped = gst_buffer_new_wrapped_full(
            GST_MEMORY_FLAG_READONLY, frame.buffer.baseAddress + frame.byteOffset, gsize(byteCount), 0,
            gsize(byteCount), retained,
            { pointer in
                // GStreamer is done with the memory: drop the reference the buffer held.
                if let pointer { Unmanaged<PixelBuffer>.fromOpaque(pointer).release() }
            })
        guard let buffer = wrapped else {
            Unmanaged<PixelBuffer>.fromOpaque(retained).release()
            throw GStreamerError(element: name, message: "could not wrap a frame in a GstBuffer")
        }
        if let presentationTime { cg_buffer_set_pts(buffer, presentationTime) }
        cg_buffer_set_duration(buffer, frameDuration)

        let flow = gst_app_src_push_buffer(cg_app_src(src), buffer)
        guard flow == GST_FLOW_OK else {
            try pipeline.checkForErrors()
            let reason = GLibString.borrow(gst_flow_get_name(flow)) ?? "\(flow.rawValue)"
            throw GStreamerError(
                element: name,
                message: "the appsrc refused a frame (\(reason)); "
                    + "is the pipeline playing?")
        }
        framesPushed += 1
    }

    /// Ends the stream: the appsrc sends end-of-stream after the frames still queued.
    /// Safe to call more than once.
    public func endOfStream() {
        guard !ended else { return }
        ended = true
        _ = gst_app_src_end_of_stream(cg_app_src(src))
    }

    /// Whether ``endOfStream()`` has been called.
    var hasEnded: Bool { ended }

    /// The appsrc element, for callers that need to tell it apart from other sources.
    var element: UnsafeMutablePointer<GstElement> { src }

    /// Waits while the appsrc holds `max-bytes` or more, watching the bus, so that the push
    /// that follows does not block inside GStreamer (where an error would leave it stuck).
    private func waitForRoom() throws {
        guard gst_app_src_get_current_level_bytes(cg_app_src(src)) >= guint64(maxBytes) else { return }
        let deadline = ContinuousClock.now + stallTimeout
        while gst_app_src_get_current_level_bytes(cg_app_src(src)) >= guint64(maxBytes) {
            if ContinuousClock.now >= deadline {
                throw GStreamerError(
                    element: name,
                    message: "the pipeline took no frame for \(stallTimeout); it is stalled (not playing, or "
                        + "an element downstream is blocked)", debug: pipeline.description)
            }
            try pipeline.idle(upTo: .milliseconds(1))
        }
    }
}
