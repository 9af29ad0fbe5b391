// PreviewSinkNode: a local window showing the frames, with detection rectangles drawn by
// focus mode; without a display it says so once and the graph goes on.
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `preview`: shows frames in a window.
public struct PreviewSinkNode: Node {
    public static let kind = "preview"
    /// Viewers give way first: the take keeps the CPU when the machine is short.
    public static var priority: NodePriority? { .preview }
    public static let summary = "A local preview window with detection rectangles; harmless without a display."
    public static let details = """
        Frames go to `sink` (GStreamer's autovideosink by default: a window on X11 or Wayland). \
        Detections, when connected, are drawn the way the reference camera UI draws them: solid \
        yellow for strong focus, dashed yellow for weak focus, white for none. With no display \
        (no DISPLAY or WAYLAND_DISPLAY) or when the window cannot be opened, the node says so \
        once and drops frames from then on — the rest of the graph is not affected.
        """

    @Input("Frames to show") public var video: Image
    @OptionalInput("Detections to outline") public var detections: Detections?
    @Parameter(default: "autovideosink sync=false", "GStreamer video sink description") public var sink: String
    @Parameter(default: 30, range: 1...240, "Frame rate announced in the caps") public var fps: Double
    @Parameter(default: 3, range: 1...16, "Rectangle line width in pixels") public var lineWidth: Int

    private var output: VideoSinkPipeline?
    private var disabled = false

    public init() {}

    static var hasDisplay: Bool {
        let env = ProcessInfo.processInfo.environment
        return !(env["DISPLAY"] ?? "").isEmpty || !(env["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    private mutating func disable(_ reason: String, _ ctx: inout NodeContext) {
        disabled = true
        output?.stop()
        output = nil
        ctx.logger.warning("preview: \(reason); the graph goes on without a window")
        ctx.post("preview-unavailable", ["reason": reason])
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if disabled { return }
        var frame = video
        if let detections, !detections.isEmpty {
            frame = video.copy(using: ctx.pool)
            for d in detections {
                switch d.focusMode {
                case .strong: frame.strokeRectangle(d.bounds, color: .focusYellow, thickness: lineWidth)
                case .weak: frame.strokeRectangle(d.bounds, color: .focusYellow, thickness: lineWidth, dash: 4 * lineWidth)
                case .none: frame.strokeRectangle(d.bounds, color: .white, thickness: lineWidth)
                }
            }
        }
        do {
            if output == nil {
                if sink.hasPrefix("autovideosink") && !Self.hasDisplay {
                    return disable("no display (DISPLAY and WAYLAND_DISPLAY are unset)", &ctx)
                }
                output = try VideoSinkPipeline(tail: sink, for: frame, fps: fps)
            }
            try output?.push(frame, at: ctx.timestamp)
        } catch {
            disable("cannot show frames: \(error)", &ctx)
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        _ = try? output?.finish(timeout: 2)
    }
}
