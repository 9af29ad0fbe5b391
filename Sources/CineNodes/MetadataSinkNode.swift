// MetadataSinkNode: per-frame metadata as JSON Lines — detections, focus state, scene
// statuses — to stdout, a file, or a Unix socket (docs/metadata.md).
import CineGraph
import CineMedia
import Foundation
import Synchronization

/// Kind `metadata`: one JSON object per frame.
public struct MetadataSinkNode: Node {
    public static let kind = "metadata"
    public static let summary = "Per-frame metadata as JSON Lines to stdout, a file, or a Unix socket."
    public static let details = """
        One line per frame (schema in docs/metadata.md): the time, the frame number, every \
        detection (id, groupID, type, normalised bounds, focusMode, disparity, confidence), the \
        focus state and the scene statuses. Connect any of the inputs; at least one. \
        `path: "-"` writes to standard output; a path writes a file (missing folders created); \
        `socket:` listens on a Unix socket and sends every line to every client connected \
        (`socat - UNIX-CONNECT:/tmp/cinegraph.sock`), never waiting for a slow one.
        """

    @OptionalInput("Detections of each frame") public var detections: Detections?
    @OptionalInput("Focus of each frame") public var focus: FocusState?
    @OptionalInput("Scene statuses of each frame (default: the focus state's)") public var scene: SceneStatus?
    @Parameter(default: "", "Output file, or - for standard output") public var path: String
    @Parameter(default: "", "Unix socket path to serve the lines on") public var socket: String

    private var file: FileHandle?
    private var server: UnixSocketBroadcaster?
    private var lines = 0
    private let loadLevel = LoadLevelBox()
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    public init() {}

    public func validate() throws {
        if path.isEmpty == socket.isEmpty {
            throw ParameterError(nil, "set exactly one of path and socket", hint: "path: \"-\" writes to standard output")
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        let level = loadLevel
        ctx.graph.subscribe { event in
            if event.node == "graph" && event.name == "load", let l = event.fields["level"].flatMap({ Int($0) }) {
                level.value.store(l, ordering: .relaxed)
            }
        }
        if !socket.isEmpty {
            do { server = try UnixSocketBroadcaster(path: socket) } catch {
                throw ParameterError("socket", "\(error)")
            }
        } else if path == "-" {
            file = FileHandle.standardOutput
        } else {
            let expanded = PathTemplate.expand(path, node: ctx.nodeName)
            try PathTemplate.prepareFolder(for: expanded)
            guard FileManager.default.createFile(atPath: expanded, contents: nil),
                  let handle = FileHandle(forWritingAtPath: expanded) else {
                throw ParameterError("path", "cannot write \(expanded)")
            }
            file = handle
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        let record = MetadataLine(time: ctx.timestamp.nanoseconds, frame: ctx.frameIndex, detections: detections ?? [],
                                  focus: focus, sceneStatus: (scene ?? focus?.sceneStatuses)?.names ?? [],
                                  loadLevel: loadLevel.value.load(ordering: .relaxed).nonZero,
                                  carried: ctx.carried.isEmpty ? nil : ctx.carried)
        let line = String(decoding: try encoder.encode(record), as: UTF8.self)
        if let server { server.broadcast(line) }
        if let file { try file.write(contentsOf: Data((line + "\n").utf8)) }
        lines += 1
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        if let file, path != "-" { try file.close() }
        file = nil
        server = nil
        ctx.post("metadata-written", ["lines": String(lines)])
    }
}

/// One line of the metadata stream.
struct MetadataLine: Encodable {
    var time: Int64
    var frame: Int
    var detections: [Detection]
    var focus: FocusState?
    var sceneStatus: [String]
    /// The load controller's level when the line was written (absent at 0: previews at full work).
    var loadLevel: Int?
    /// The nodes whose outputs were carried forward for this frame (absent when all were computed).
    var carried: [String]?
}

/// The load level, set from the event subscriber and read by the node's thread.
final class LoadLevelBox: Sendable {
    let value = Atomic<Int>(0)
}

extension Int {
    /// `nil` for 0.
    var nonZero: Int? { self == 0 ? nil : self }
}
