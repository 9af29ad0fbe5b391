// GstSinkNode: the escape hatch — frames into any GStreamer sink description.
import CineGStreamer
import CineGraph
import CineMedia

/// Kind `gst-sink`: video into a GStreamer pipeline description.
public struct GstSinkNode: Node {
    public static let kind = "gst-sink"
    public static let summary = "Video into any GStreamer description (RTP, SRT, a window, a file...)."
    public static let details = """
        cinegraph prepends `appsrc ! videoconvert !`, so the description starts with what \
        follows, for example `x264enc tune=zerolatency ! rtph264pay ! udpsink host=127.0.0.1 port=5000`. \
        The stream is ended (EOS) and waited for when the graph stops; `linger` then keeps the \
        pipeline open a moment longer, so a network sink (SRT) delivers its last packets before \
        its connection closes (graphs/srt-send.conf).
        """

    @Input("Frames") public var video: Image
    @Parameter(default: "fakesink", "GStreamer description after the appsrc") public var description: String
    @Parameter(default: 30, range: 1...240, "Frame rate announced in the caps") public var fps: Double
    @Parameter(default: .seconds(0), range: .zero ... .seconds(30), "How long to keep the pipeline open after the stream ends (network sinks)")
    public var linger: Duration

    private var sink: VideoSinkPipeline?

    public init() {}

    public func validate() throws {
        if description.contains("appsrc") { throw ParameterError("description", "leave out the source; cinegraph adds an appsrc") }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if sink == nil { sink = try VideoSinkPipeline(tail: description, for: video, fps: fps) }
        try sink?.push(video, at: ctx.timestamp)
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        guard let sink else { return }
        if try !sink.finish(timeout: 10, linger: linger.seconds) {
            ctx.logger.warning("gst-sink: no end-of-stream within 10 s; stopped anyway")
        }
    }
}
