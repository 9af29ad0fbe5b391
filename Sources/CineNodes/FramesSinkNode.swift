// FramesSinkNode: rendered frames out of the graph — to numbered image files, to any
// GStreamer sink description (RTP, SRT, a socket), or to a Swift callback in the embedding app.
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `frames`: frames to files, a GStreamer description, or a callback.
public struct FramesSinkNode: Node {
    public static let kind = "frames"
    public static let summary = "Frames out: numbered PNG/JPEG files, a GStreamer description, or a Swift callback."
    public static let details = """
        Set exactly one of `path`, `description` and `callback`. \
        `path` is a printf-style pattern numbered from 0, such as `out/frames/%05d.png` (`.png` \
        or `.jpg`); missing folders are created. `description` is what follows \
        `appsrc ! videoconvert !`, for example \
        `x264enc tune=zerolatency ! rtph264pay ! udpsink host=127.0.0.1 port=5000`. `callback` \
        names a function the embedding program gave its registry \
        (`NodeRegistry.standard(frameCallbacks: ["name": { image, time in … }])`).
        """

    @Input("Frames") public var video: Image
    @Parameter(default: "", "Numbered file pattern, e.g. out/frames/%05d.png") public var path: String
    @Parameter(default: "", "GStreamer description after appsrc ! videoconvert !") public var description: String
    @Parameter(default: "", "Name of a callback the program registered (frameCallbacks:)") public var callback: String
    @Parameter(default: 30, range: 1...240, "Frame rate announced in the caps") public var fps: Double
    @Parameter(default: 90, range: 1...100, "JPEG quality") public var quality: Int

    /// A function receiving each frame and its timestamp, on the sink's thread, one frame at a
    /// time: a slow callback slows the sink (and, downstream of a live camera, makes its input
    /// edge drop frames, counted in the summary).
    public typealias Callback = @Sendable (Image, Timestamp) -> Void
    /// The callbacks the program gave at registration, by name.
    var callbacks: [String: Callback] = [:]

    private var sink: VideoSinkPipeline?
    private var written = 0

    public init() {}

    public func validate() throws {
        let set = [path, description, callback].filter { !$0.isEmpty }.count
        if set != 1 {
            throw ParameterError(nil, "set exactly one of path, description and callback (\(set) set)")
        }
        if !path.isEmpty {
            let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
            if !["png", "jpg", "jpeg"].contains(ext) { throw ParameterError("path", "'\(path)' must end in .png or .jpg") }
            if !path.contains("%") { throw ParameterError("path", "'\(path)' needs a frame number such as %05d") }
        }
    }

    /// The named callback must be one this program registered (a config that names one still
    /// validates anywhere).
    public func preflight() throws {
        if !callback.isEmpty && callbacks[callback] == nil {
            let names = callbacks.keys.sorted()
            throw ParameterError("callback", "no callback registered as '\(callback)'",
                                 hint: names.isEmpty ? "give the registry one: NodeRegistry.standard(frameCallbacks: [\"\(callback)\": …])"
                                    : "registered: \(names.joined(separator: ", "))")
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws { try preflight() }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if !callback.isEmpty {
            callbacks[callback]?(video, ctx.timestamp)  // there: start checked
            written += 1
            return
        }
        if sink == nil {
            let tail: String
            if !path.isEmpty {
                let expanded = PathTemplate.expand(path, node: ctx.nodeName)
                try PathTemplate.prepareFolder(for: expanded)
                let ext = URL(fileURLWithPath: expanded).pathExtension.lowercased()
                let encoder = ext == "png" ? "pngenc" : "jpegenc quality=\(quality)"
                tail = "\(encoder) ! multifilesink location=\(Pipeline.quoted(expanded)) index=0"
            } else {
                tail = description
            }
            sink = try VideoSinkPipeline(tail: tail, for: video, fps: fps)
        }
        try sink!.push(video, at: ctx.timestamp)
        written += 1
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        if let sink, try !sink.finish(timeout: 15) { ctx.logger.warning("frames: no end-of-stream within 15 s") }
        ctx.post("frames-written", ["frames": String(written)])
    }
}
