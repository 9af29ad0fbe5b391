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
        GStreamer element that failed. With `layout: side-by-side` or `top-bottom` the frame holds \
        both views of a stereo camera, offered as `left`, `right` and `stereo` (a remote camera \
        over SRT: graphs/srt-receive.conf). Times count from the first frame. A stream that fails \
        after its first frame, or ends after `silence` without frames (a network peer gone: SRT \
        gives up on a silent peer after 5 s), ends the run as a lost source: everything received \
        is kept and finalised.
        """

    @Output(formats: [.i420], "Frames") public var video: Image
    @Output("Both views of each frame (side-by-side or top-bottom layouts)") public var stereo: StereoFrame
    @Output(formats: [.i420], "The left (reference) view, or the whole frame for mono") public var left: Image
    @Output(formats: [.i420], "The right view (stereo layouts)") public var right: Image
    @Parameter(default: "videotestsrc num-buffers=300", "GStreamer source description") public var description: String
    @Parameter(default: false, "A live source (drop-oldest edges downstream)") public var live: Bool
    @Parameter(default: .mono, "How each frame holds the views") public var layout: StereoLayout
    @Parameter(default: .seconds(3), range: .milliseconds(1) ... .seconds(3600), "An end of stream this long after the last frame means the source was lost")
    public var silence: Duration

    private var pipeline: Pipeline?
    private var reader: AppSinkReader?
    private var frames = 0
    /// The first frame's stamp (times are counted from it) and the last time given.
    private var origin: Timestamp?
    private var last: Timestamp?
    /// When the last frame arrived (monotonic clock).
    private var lastArrival: ContinuousClock.Instant?
    /// A silence longer than `silence` just before the latest frames (forgotten once the stream
    /// has flowed again for half a second, 15 frames), and the frames since.
    private var quietBeforeLast: Duration?
    private var framesSinceQuiet = 0

    public init() {}
    public var isLive: Bool { live }

    public func validate() throws {
        if description.contains("appsink") { throw ParameterError("description", "leave out the sink; cinegraph adds an appsink") }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        let p = try Pipeline("\(description) ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false max-buffers=4 drop=\(live)")
        reader = try AppSinkReader(pipeline: p, name: "sink", pool: ctx.pool)
        try p.play()
        pipeline = p
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let reader else { return }
        let read: ReadResult
        do { read = try reader.next(timeout: 0.2) } catch let error as GStreamerError where frames > 0 {
            throw SourceLostError("gst-source: the stream stopped after \(frames) frames (\(error)); everything received is kept")
        }
        switch read {
        case .timeout: return
        case .endOfStream:
            // The demuxer and parser flush their last frame or two at the end, so the silence may
            // lie just before those.
            let quiet = max(lastArrival.map { $0.duration(to: .now) } ?? .zero, quietBeforeLast ?? .zero)
            if quiet > silence {
                throw SourceLostError(
                    "gst-source: no frame for \(Int(quiet.seconds.rounded())) s, then the stream ended after \(frames) frames (the sender went away); everything received is kept")
            }
            ctx.logger.notice("gst-source: the stream ended after \(frames) frames")
            ctx.endOfStream()
        case .frame(let image, let t):
            frames += 1
            let now = ContinuousClock.now
            if let lastArrival {
                let gap = lastArrival.duration(to: now)
                framesSinceQuiet += 1
                if gap > silence { (quietBeforeLast, framesSinceQuiet) = (gap, 0) } else if framesSinceQuiet > 15 { quietBeforeLast = nil }
            }
            lastArrival = now
            // Times from the first frame, strictly increasing: a network stream's stamps start
            // anywhere, and a demuxer may repeat one.
            let start = origin ?? t
            origin = start
            var time = t - start
            if let last, time <= last { time = last + Timestamp(seconds: 1 / (reader.frameRate ?? 30)) }
            last = time
            ctx.timestamp = time
            video = image
            let (l, r) = layout.split(image)
            StereoOutputs.assign(l, r, left: _left, right: _right, stereo: _stereo, ctx)
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws { pipeline?.stop() }
}
