// RecordSwitch: the `record start|stop` command of the recording sinks (movie, asset) — pause
// after finalising the file, resume with the next frame.
import CineGraph

/// Pause / resume state of a recording sink and the replies to `record start|stop`.
struct RecordSwitch {
    /// Set by `record stop`: frames are not recorded until `record start`.
    private(set) var paused = false

    /// Handles `record` (argument `start` or `stop`). `stop` calls `finalise`, which closes the
    /// current file and returns its path (`nil` before the first frame).
    mutating func handle(_ command: NodeCommand, current: String?, finalise: () throws -> String?) throws -> String {
        switch command.arguments["value"] {
        case "stop":
            if paused { return "not recording" }
            paused = true
            return try finalise().map { "stopped: \($0)" } ?? "stopped before the first frame"
        case "start":
            if !paused { return "recording \(current ?? "from the first frame")" }
            paused = false
            return "recording from the next frame"
        default:
            throw NodeCommandError("record: give start or stop")
        }
    }
}
