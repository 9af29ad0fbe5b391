// AppSrcDataWriter: pushes byte buffers (text, JSON) with timestamps into an appsrc.
import CGStreamer
import CineMedia

/// Pushes small byte buffers — one JSON document per frame, for example — into an `appsrc`
/// with the given caps (such as `text/x-raw,format=utf8`). Each push copies the bytes into a
/// new GStreamer buffer: meant for metadata of a few kB per frame, not for pixels.
public final class AppSrcDataWriter: @unchecked Sendable {
    /// The pipeline the appsrc lives in.
    public let pipeline: Pipeline
    private let src: UnsafeMutablePointer<GstElement>
    private var ended = false

    /// Writes to the appsrc called `name`, setting its caps to `caps` and `format=time`.
    public init(pipeline: Pipeline, name: String, caps: String) throws {
        guard let element = pipeline.child(named: name), cg_is_app_src(element) != 0 else {
            throw GStreamerError(element: name, message: "the pipeline has no appsrc named \"\(name)\"")
        }
        self.pipeline = pipeline
        self.src = element
        guard let parsed = gst_caps_from_string(caps) else {
            gst_object_unref(element)
            throw GStreamerError(element: name, message: "invalid caps \(caps)")
        }
        gst_app_src_set_caps(cg_app_src(element), parsed)
        gst_caps_unref(parsed)
        cg_object_set_from_string(element, "format", "time")
    }

    deinit { gst_object_unref(src) }

    /// Pushes `bytes` stamped at `presentationTime` nanoseconds, lasting `duration` nanoseconds.
    public func push(_ bytes: [UInt8], presentationTime: UInt64, duration: UInt64) throws {
        try bytes.withUnsafeBytes { try push($0, presentationTime: presentationTime, duration: duration) }
    }

    /// Pushes the bytes `raw` points at (copied), stamped and lasting as for ``push(_:presentationTime:duration:)``.
    public func push(_ raw: UnsafeRawBufferPointer, presentationTime: UInt64, duration: UInt64) throws {
        try pipeline.checkForErrors()
        guard let buffer = gst_buffer_new_allocate(nil, gsize(max(1, raw.count)), nil) else {
            throw GStreamerError(element: cg_element_name(src).map { String(cString: $0) }, message: "out of memory")
        }
        if let base = raw.baseAddress { _ = gst_buffer_fill(buffer, 0, base, gsize(raw.count)) }
        cg_buffer_set_pts(buffer, guint64(presentationTime))
        cg_buffer_set_duration(buffer, guint64(duration))
        let flow = gst_app_src_push_buffer(cg_app_src(src), buffer)
        if flow != GST_FLOW_OK {
            try pipeline.checkForErrors()
            throw GStreamerError(element: cg_element_name(src).map { String(cString: $0) },
                                 message: "the pipeline refused a buffer (flow \(flow.rawValue))")
        }
    }

    /// Ends the stream (idempotent).
    public func endOfStream() {
        guard !ended else { return }
        ended = true
        _ = gst_app_src_end_of_stream(cg_app_src(src))
    }
}
