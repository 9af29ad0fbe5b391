// StillSinkNode: kind `still` — writes full-resolution stills of the frames it receives (the
// bokeh burned in) as JPEG or PNG through GStreamer's encoders, each with a JSON sidecar.
import CineGStreamer
import CineGraph
import CineMedia
import Foundation

/// Kind `still`: takes stills on command or at an interval.
public struct StillSinkNode: Node {
    public static let kind = "still"
    public static let summary = "Writes stills (JPEG or PNG, full resolution) on command or at an interval, with a JSON sidecar."
    public static let details = """
        Connect it after `bokeh` to capture stills with the depth of field burned in. The \
        command `still` writes the most recent frame at once and replies with its path; \
        `interval` (when not 0) also writes one every so often. The encoder follows the path's \
        extension: `.jpg`/`.jpeg` (jpegenc, `jpeg-quality`) or `.png` (pngenc). `{time}`, \
        `{date}`, `{node}` and `{index}` (a counter) expand in the path; missing folders are \
        created. Beside each still, `NAME.json` holds the frame's timestamp and index, size, \
        focus state and detections (when those inputs are connected). Posts `still-saved`.
        """
    public static let commands = [CommandDescription("still", "Write the most recent frame now; replies with the path")]

    @Input("Frames to capture (any format GStreamer can convert; usually bokeh.video)") public var image: Image
    @OptionalInput("Detections of the frame, written to the sidecar") public var detections: Detections?
    @OptionalInput("Focus state of the frame (bokeh.state), written to the sidecar") public var focus: FocusState?

    @Parameter(default: "still-{time}-{index}.jpg", "Output path (.jpg, .jpeg, .png); {time} {date} {node} {index} expand")
    public var path: String
    @Parameter(default: .seconds(0), range: .zero ... .seconds(86_400), "Also write a still this often (0 = only on command)") public var interval: Duration
    @Parameter(default: 92, range: 1...100, "JPEG quality") public var jpegQuality: Int

    private var last: (image: Image, timestamp: Timestamp, frame: Int, detections: Detections?, focus: FocusState?)?
    private var nextDue: Timestamp?
    private var written = 0

    public init() {}

    public func validate() throws {
        _ = try encoder(for: path)
    }

    private func encoder(for path: String) throws -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "jpegenc quality=\(jpegQuality)"
        case "png": return "pngenc"
        default: throw ParameterError("path", "'\(path)' must end in .jpg, .jpeg or .png")
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        last = (image, ctx.timestamp, ctx.frameIndex, detections, focus)
        guard interval.seconds > 0 else { return }
        if nextDue == nil { nextDue = ctx.timestamp }
        if let due = nextDue, ctx.timestamp >= due {
            _ = try writeLast(ctx)
            nextDue = Timestamp(seconds: ctx.timestamp.seconds + interval.seconds)
        }
    }

    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        guard command.name == "still" else { throw NodeCommandError("still has no command '\(command.name)'; try 'still'") }
        guard last != nil else { throw NodeCommandError("still: no frame has arrived yet") }
        return try writeLast(ctx)
    }

    /// Encodes the most recent frame and its sidecar; returns the still's path.
    private mutating func writeLast(_ ctx: NodeContext) throws -> String {
        guard let last else { throw NodeCommandError("still: no frame has arrived yet") }
        let output = PathTemplate.expand(path, node: ctx.nodeName).replacingOccurrences(of: "{index}", with: String(written))
        try PathTemplate.prepareFolder(for: output)
        try Self.encode(last.image, to: output, encoder: try encoder(for: output))
        let sidecar = StillSidecar(image: (output as NSString).lastPathComponent, timestamp: last.timestamp.seconds,
                                   frame: last.frame, width: last.image.width, height: last.image.height,
                                   focus: last.focus, detections: last.detections ?? [])
        let json = JSONEncoder()
        json.outputFormatting = [.prettyPrinted, .sortedKeys]
        let sidecarPath = ((output as NSString).deletingPathExtension as String) + ".json"
        try json.encode(sidecar).write(to: URL(fileURLWithPath: sidecarPath))
        written += 1
        ctx.post("still-saved", ["path": output, "sidecar": sidecarPath, "frame": String(last.frame)])
        return output
    }

    /// Writes `image` as a JPEG (`.jpg`, `.jpeg`) or PNG (`.png`) file, by the path's extension.
    /// - Throws: ``ParameterError`` for another extension; ``GStreamerError`` when encoding fails.
    public static func write(_ image: Image, to path: String, jpegQuality: Int = 92) throws {
        let node = StillSinkNode()
        node.jpegQuality = jpegQuality
        try encode(image, to: path, encoder: try node.encoder(for: path))
    }

    /// Writes one frame through `appsrc ! videoconvert ! ENCODER ! filesink`.
    static func encode(_ image: Image, to path: String, encoder: String) throws {
        let sink = try VideoSinkPipeline(tail: "\(encoder) ! filesink location=\(Pipeline.quoted(path))", for: image, fps: 1)
        try sink.push(image, at: .zero)
        guard try sink.finish(timeout: 30) else {
            throw GStreamerError(element: "filesink", message: "still \(path) was not finished within 30 s")
        }
    }
}

/// The JSON written beside each still.
struct StillSidecar: Codable {
    var image: String
    var timestamp: Double
    var frame: Int
    var width: Int
    var height: Int
    var focus: FocusState?
    var detections: [Detection]
}
