// RecordingTake: what the recording sinks (movie, asset) share — the file of the current take
// opened with the first frame, finalised on stop, `record start|stop`, `status`, and the name
// of each new take, so that no take ever overwrites an earlier one.
import CineGStreamer
import CineGraph
import Foundation

/// A file a recording sink writes: frames counted, finalised once.
protocol RecordingFile: AnyObject {
    /// Frames appended so far.
    var framesWritten: Int { get }
    /// Finalises the file (EOS through the muxer), waiting at most `timeout` seconds.
    func finish(timeout: Double) throws
}

extension MovieRecorder: RecordingFile {}
extension AssetWriter: RecordingFile {}

extension CommandArgument {
    /// `record start|stop`: the recording sinks' one argument (`action` in the control API).
    static let recordAction = CommandArgument("action", .choice(["start", "stop"]), positional: true, "start or stop")
}

/// The x264 speed presets, fastest first.
public enum X264Preset: String, ParameterEnum {
    case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow
}

/// One recording sink's takes: the open file, its path, paused or not, how many takes ended.
struct RecordingTake<File: RecordingFile> {
    /// The event posted when a file is finalised (`movie-saved`, `asset-saved`).
    let savedEvent: String
    /// The file of the current take, once its first frame arrived.
    private(set) var file: File?
    /// Where the current (or last) take is written.
    private(set) var path = ""
    /// Set by `record stop`: frames are not recorded until `record start`.
    private(set) var paused = false
    /// Takes finished by `record stop`, so that the next one gets a new name.
    private var takes = 0

    init(savedEvent: String) { self.savedEvent = savedEvent }

    /// The file this frame goes to: `nil` while paused; on the take's first frame, `open` makes it
    /// at the take's path (the template expanded, folders created) and `recording-started` is posted.
    mutating func file(_ ctx: inout NodeContext, template: String, open: (String) throws -> File) throws -> File? {
        if paused { return nil }
        if let file { return file }
        path = Self.takePath(PathTemplate.expand(template, node: ctx.nodeName), take: takes)
        try PathTemplate.prepareFolder(for: path)
        let opened = try open(path)
        file = opened
        ctx.logger.info("recording \(path)")
        ctx.post("recording-started", ["path": path])
        return opened
    }

    /// Finalises the current file, if any, and posts the saved event with its path and frames.
    mutating func finish(_ ctx: inout NodeContext, timeout: Double = 15) throws {
        guard let file else { return }
        self.file = nil
        try file.finish(timeout: timeout)
        ctx.post(savedEvent, ["path": path, "frames": String(file.framesWritten)])
    }

    /// `record start|stop` and `status`; `kind` names the node kind in errors.
    mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext, kind: String) throws -> String {
        switch command.name {
        case "record":
            switch command.text("action") {
            case "stop":
                if paused { return "not recording" }
                paused = true
                guard file != nil else { return "stopped before the first frame" }
                try finish(&ctx)
                takes += 1
                return "stopped: \(path)"
            case "start":
                if !paused { return "recording \(file == nil ? "from the first frame" : path)" }
                paused = false
                return "recording from the next frame"
            default:
                throw NodeCommandError("record: give start or stop")  // refused before, by the declaration
            }
        case "status":
            if paused { return "paused (record start begins a new take)" }
            guard let file else { return "not recording yet" }
            return "\(path): \(file.framesWritten) frames"
        default:
            throw NodeCommandError("\(kind) has no command '\(command.name)'; try 'status' or 'record start|stop'")
        }
    }

    /// The path of take `take` (0 = the first): the expanded path when it names no file yet (it
    /// has {time}, or the first take), else `take-2.mp4`, `take-3.mp4`, … (`.cine.mkv` keeps its
    /// double extension), never a file that exists. The first take overwrites, as every sink does.
    static func takePath(_ path: String, take: Int) -> String {
        guard take > 0, FileManager.default.fileExists(atPath: path) else { return path }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let stem = name.hasSuffix(".cine.mkv") ? String(name.dropLast(9)) : String(name.dropLast(url.pathExtension.count + 1))
        let ext = name.hasSuffix(".cine.mkv") ? "cine.mkv" : url.pathExtension
        var n = max(2, take + 1)
        while true {
            let candidate = url.deletingLastPathComponent().appendingPathComponent("\(stem)-\(n).\(ext)").path
            if !FileManager.default.fileExists(atPath: candidate) { return candidate }
            n += 1
        }
    }
}
