// AudioSinkReader: takes what a live microphone branch has captured so far, without waiting —
// the sound a camera node sends with each frame.
import CGStreamer
import CineMedia

/// Reads one-channel 32-bit float sound from an `appsink` (caps
/// `audio/x-raw,format=F32LE,layout=interleaved,channels=1`) in a running pipeline.
/// ``drain()`` returns everything captured since the last call as one block, stamped with its
/// first sample's time: the clock the pipeline's video frames are stamped with.
public final class AudioSinkReader: @unchecked Sendable {
    private let pipeline: Pipeline
    private let sink: UnsafeMutablePointer<GstElement>

    /// Reads from the appsink called `name` in `pipeline`.
    public init(pipeline: Pipeline, name: String) throws {
        guard let element = pipeline.child(named: name) else {
            throw GStreamerError(element: name, message: "the pipeline has no appsink named \"\(name)\"")
        }
        self.pipeline = pipeline
        sink = element
    }

    deinit { gst_object_unref(sink) }

    /// The sound captured since the last call (the buffers waiting in the sink, joined), or
    /// `nil` when none is waiting. Never blocks.
    public func drain() throws -> AudioBlock? {
        try pipeline.checkForErrors()
        var samples: [Float] = []
        var start: Int64?
        var rate = 0
        while let sample = gst_app_sink_try_pull_sample(cg_app_sink(sink), 0) {
            defer { gst_sample_unref(sample) }
            if rate == 0, let caps = gst_sample_get_caps(sample), let s = gst_caps_get_structure(caps, 0) {
                var r: gint = 0
                _ = gst_structure_get_int(s, "rate", &r)
                rate = Int(r)
            }
            guard let buffer = gst_sample_get_buffer(sample) else { continue }
            if start == nil {
                let pts = cg_buffer_pts(buffer)
                // Stamped as the video's frames are (``AppSinkReader``): a live source's buffer time.
                if pts != CG_CLOCK_TIME_NONE { start = Int64(pts) }
            }
            Self.appendFloats(of: buffer, to: &samples)
        }
        guard let start, rate > 0, !samples.isEmpty else { return nil }
        return AudioBlock(samples: samples, sampleRate: rate, start: Timestamp(nanoseconds: start))
    }

    /// Appends the 32-bit float samples `buffer` holds to `samples`.
    static func appendFloats(of buffer: UnsafeMutablePointer<GstBuffer>, to samples: inout [Float]) {
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
        let count = Int(map.size) / MemoryLayout<Float>.size
        map.data.withMemoryRebound(to: Float.self, capacity: count) { p in
            samples.append(contentsOf: UnsafeBufferPointer(start: p, count: count))
        }
        gst_buffer_unmap(buffer, &map)
    }
}
