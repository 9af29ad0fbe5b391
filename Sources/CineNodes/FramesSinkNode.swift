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
        names a function the embedding program registered with `FrameCallbacks.register`.
        """

    @Input("Frames") public var video: Image
    @Parameter(default: "", "Numbered file pattern, e.g. out/frames/%05d.png") public var path: String
    @Parameter(default: "", "GStreamer description after appsrc ! videoconvert !") public var description: String
    @Parameter(default: "", "Name of a callback registered with FrameCallbacks") public var callback: String
    @Parameter(default: 30, range: 1...240, "Frame rate announced in the caps") public var fps: Double
    @Parameter(default: 90, range: 1...100, "JPEG quality") public var quality: Int

    private var sink: VideoSinkPipeline?
    private var target: FrameCallbacks.Callback?
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

    public func preflight() throws {
        if !callback.isEmpty && FrameCallbacks.callback(named: callback) == nil {
            let names = FrameCallbacks.names
            throw ParameterError("callback", "no callback registered as '\(callback)'",
                                 hint: names.isEmpty ? "register one with FrameCallbacks.register" : "registered: \(names.joined(separator: ", "))")
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        if !callback.isEmpty {
            if target == nil {
                guard let c = FrameCallbacks.callback(named: callback) else {
                    throw ParameterError("callback", "no callback registered as '\(callback)'")
                }
                target = c
            }
            target!(video, ctx.timestamp)
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
