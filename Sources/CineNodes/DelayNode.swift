// DelayNode: holds frames back by a fixed time, so that they meet the focus decided with
// lookahead (the focus node's packet at instant T describes the frame at T − lookahead).
import CineGraph
import CineMedia

/// Kind `delay`: re-emits the video and disparity of instant T − `duration` at instant T.
public struct DelayNode: Node {
    public static let kind = "delay"
    public static let summary = "Delays video and disparity by a fixed time (to meet focus decided with lookahead)."
    public static let details = """
        The `focus` node with `lookahead: L` emits, at instant T, the focus of the frame at T − L. \
        Put the frames it applies to through `delay` with `duration: L` and join both at the \
        `bokeh` node: at instant T it receives the frame of T − L and that frame's focus. Like the \
        focus node, nothing leaves during the first L seconds; at the end of the stream both flush \
        what they hold (each frame at its instant + L), so every frame of the take comes out. \
        Connect `video`, `disparity` or both; they are held and released together.
        """

    @OptionalInput("Frames to delay") public var video: Image?
    @OptionalInput("Disparity maps to delay") public var disparity: DisparityMap?
    @Output(formatOf: "video", "The frame of T − duration") public var delayedVideo: Image
    @Output("The disparity of T − duration") public var delayedDisparity: DisparityMap
    @Parameter(default: .milliseconds(500), range: .zero ... .seconds(10), "How long to hold frames (match the focus node's lookahead)")
    public var duration: Duration

    private var held: [(time: Timestamp, video: Image?, disparity: DisparityMap?)] = []

    public init() {}

    public mutating func process(_ ctx: inout NodeContext) throws {
        held.append((ctx.timestamp, video, disparity))
        let due = ctx.timestamp - Timestamp(seconds: duration.seconds)
        // Release the newest instant that is due; older due ones can no longer be joined.
        guard let last = held.lastIndex(where: { $0.time <= due }) else { return }
        let out = held[last]
        held.removeFirst(last + 1)
        if let v = out.video { delayedVideo = v }
        if let d = out.disparity { delayedDisparity = d }
    }

    /// The end of the stream: every frame still held leaves at its own instant + `duration`
    /// (where the focus node stamps the same frames' focus), so the take keeps its last seconds.
    public mutating func finish(_ ctx: inout NodeContext) throws {
        let shift = Timestamp(seconds: duration.seconds)
        for h in held {
            if let v = h.video { delayedVideo = v }
            if let d = h.disparity { delayedDisparity = d }
            ctx.emit(at: h.time + shift)
        }
        held.removeAll()
    }
}
