// RenderGraph: the graph that re-renders a cinematic asset into an ordinary movie —
// asset-source → (refocus) → bokeh → movie, the audio kept. `cinegraph render` and the editor
// both run it.
import CineMedia

/// Builds the configuration of a render: the asset's video and disparity through the bokeh
/// renderer into a movie, focus decided by the script (recorded decisions plus a changes file)
/// or fixed at one disparity.
public enum RenderGraph {
    /// What to render, and how.
    public struct Request: Sendable {
        /// The cinematic asset (.mkv).
        public var asset: String
        /// The movie to write.
        public var output: String
        /// The f-number; `nil` = the changes file's, else the recording's, else 2.8.
        public var aperture: Double?
        /// A changes file from `cinegraph script` or the editor.
        public var changes: String?
        /// A fixed focus plane (full-resolution pixels) in place of the script.
        public var focusDisparity: Double?
        /// Bokeh quality: draft, standard, high.
        public var quality = "standard"
        /// x264 speed preset.
        public var preset = "veryfast"

        /// A render of `asset` into `output`.
        public init(asset: String, output: String) {
            self.asset = asset
            self.output = output
        }
    }

    /// The name of the node whose frames count the render's progress.
    public static let progressNode = "movie"

    /// The graph configuration (YAML) for `request`, for an asset with `header` whose first
    /// frame is `first` (a recorded focus track makes the script decide focus).
    public static func config(_ request: Request, header: AssetHeader, first: AssetFrameRecord) -> String {
        // The script decides focus unless a fixed plane was asked for.
        let scripted = request.focusDisparity == nil && (first.focus != nil || request.changes != nil)
        var nodes = ["  asset: { kind: asset-source, path: \(quote(request.asset)) }"]
        if scripted {
            nodes.append("  refocus: { kind: refocus, detections: asset.detections, asset: \(quote(request.asset)), "
                + "changes: \(quote(request.changes ?? "")), aperture: \(request.aperture ?? 0) }")
        }
        nodes.append("  bokeh: { kind: bokeh, image: asset.video, disparity: asset.disparity, aperture: \(request.aperture ?? 2.8), "
            + "quality: \(request.quality)\(scripted ? ", focus: refocus.focus" : "")"
            + "\(request.focusDisparity.map { ", focus-disparity: \($0)" } ?? "") }")
        let audio = header.audioChannels != nil ? ", audio-from: \(quote(request.asset))" : ""
        nodes.append("  \(progressNode): { kind: movie, video: bokeh.video, path: \(quote(request.output)), fps: \(header.fps), "
            + "preset: \(request.preset)\(audio) }")
        return "graph: render\nnodes:\n" + nodes.joined(separator: "\n") + "\n"
    }

    /// `text` as a double-quoted YAML scalar, for paths put into a generated config.
    public static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
