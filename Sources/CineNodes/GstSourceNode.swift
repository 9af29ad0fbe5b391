// GstSourceNode: the escape hatch — frames from any GStreamer source description.
import CineGStreamer
import CineGraph
import CineMedia

/// Kind `gst-source`: video from a GStreamer pipeline description.
public struct GstSourceNode: Node {
    public static let kind = "gst-source"
    public static let summary = "Video from any GStreamer description (an escape hatch)."
    public static let details = """
        The description is everything before the sink, for example \
        `videotestsrc pattern=ball num-buffers=300 ! video/x-raw,width=1280,height=720,framerate=30/1`. \
        cinegraph appends `videoconvert ! video/x-raw,format=I420 ! appsink`. Errors name the \
        GStreamer element that failed.
        """

    @Output("Frames, I420") public var video: Image
    @Parameter(default: "videotestsrc num-buffers=300", "GStreamer source description") public var description: String
    @Parameter(default: false, "A live source (drop-oldest edges downstream)") public var live: Bool

    private var pipeline: Pipeline?
    private var reader: AppSinkReader?

    public init() {}
    public var isLive: Bool { live }

    public func validate() throws {
        if description.contains("appsink") { throw ParameterError("description", "leave out the sink; cinegraph adds an appsink") }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        try GStreamer.initialize()
        let p = try Pipeline("\(description) ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false max-buffers=4 drop=\(live)")
        reader = try AppSinkReader(pipeline: p, name: "sink", pool: ctx.pool)
        try p.play()
        pipeline = p
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let reader else { return }
        switch try reader.next(timeout: 0.2) {
        case .timeout: return
        case .endOfStream: ctx.endOfStream()
        case .frame(let image, let t):
            ctx.timestamp = t
            video = image
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws { pipeline?.stop() }
}
