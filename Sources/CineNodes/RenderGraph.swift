// RenderGraph: the graph that re-renders a cinematic asset into an ordinary movie —
// asset-source → (refocus) → bokeh → movie, the audio kept. `cinegraph render` and the editor
// both run it.
import CineGraph
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
        /// Bokeh quality.
        public var quality = BokehNode.Quality.standard
        /// x264 speed preset.
        public var preset = "veryfast"
        /// The asset whose sound the movie keeps when it is not `asset` (a repaired take's
        /// original); `nil` = `asset`'s, when it has a sound track.
        public var audioFrom: String?

        /// A render of `asset` into `output`.
        public init(asset: String, output: String) {
            self.asset = asset
            self.output = output
        }
    }

    /// The name of the node whose frames count the render's progress.
    public static let progressNode = "movie"

    /// The graph for `request`, for an asset with `header` whose first frame is `first` (a
    /// recorded focus track makes the script decide focus).
    public static func spec(_ request: Request, header: AssetHeader, first: AssetFrameRecord) -> GraphSpec {
        // The script decides focus unless a fixed plane was asked for.
        let scripted = request.focusDisparity == nil && (first.focus != nil || request.changes != nil)
        var g = GraphSpec(name: "render")
        g.add("asset", kind: "asset-source", ["path": request.asset])
        var bokeh: [String: String] = ["image": "asset.video", "disparity": "asset.disparity"]
        if scripted {
            g.add("refocus", kind: "refocus", inputs: ["detections": "asset.detections"],
                  ["asset": request.asset, "changes": request.changes ?? "", "aperture": request.aperture ?? 0])
            bokeh["focus"] = "refocus.focus"
        }
        var lens: [String: any ParameterValue] = ["aperture": request.aperture ?? 2.8, "quality": request.quality]
        if let plane = request.focusDisparity { lens["focus-disparity"] = plane }
        g.add("bokeh", kind: "bokeh", inputs: bokeh, lens)
        var movie: [String: any ParameterValue] = ["path": request.output, "fps": header.fps, "preset": request.preset]
        if let source = request.audioFrom ?? (header.audioChannels != nil ? request.asset : nil) {
            movie["audio-from"] = source  // the take's sound kept
        }
        g.add(progressNode, kind: "movie", inputs: ["video": "bokeh.video"], movie)
        return g
    }
}
