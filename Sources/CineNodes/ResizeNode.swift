// ResizeNode: kind `resize` — frames at another size (area averaging), for a preview or a
// viewfinder branch that need not pay for full resolution.
import CineGraph
import CineMedia
import CineVision

/// Kind `resize`: scales I420 or gray8 frames to `width` (height keeps the aspect) or to `size`.
public struct ResizeNode: Node {
    public static let kind = "resize"
    /// Turned down by the load controller when it feeds only previews (docs/config.md#priorities).
    public static var adaptations: [NodeAdaptation] { [NodeAdaptation("width", steps: ["960", "640", "480"])] }
    public static let summary = "Scales frames (area averaging), e.g. to a preview resolution."
    public static let details = """
        Each output pixel is the mean of the source pixels it covers, so fine texture does not \
        alias. Give `width` (the height follows the aspect ratio, rounded to even) or `size`. A \
        typical use is the live branch of the cinematic graph: the bokeh renderer and the \
        viewfinder work at 960×540 while the asset records the full-resolution original. \
        Disparity maps need no resizing: consumers scale them by their `referenceWidth`.
        """

    @Input(formats: [.i420, .gray8], "Frames") public var video: Image
    @Output(formatOf: "video", "The frames at the new size") public var resized: Image
    @Parameter(default: 960, range: 16...8192, "Output width (height keeps the aspect ratio)") public var width: Int
    @Parameter(default: FrameSize(width: 0, height: 0), "Output size (overrides width when set)") public var size: FrameSize

    public init() {}

    public mutating func process(_ ctx: inout NodeContext) throws {
        var w = size.width > 0 ? size.width : width
        var h = size.height > 0 ? size.height : Int((Double(video.height) * Double(w) / Double(video.width)).rounded())
        if video.format == .i420 {
            w = max(2, w & ~1)
            h = max(2, h & ~1)
        }
        resized = w == video.width && h == video.height ? video : ImageResizer().resize(video, width: w, height: h, pool: ctx.pool)
    }
}
