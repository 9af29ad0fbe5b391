// LiveState: what the viewfinder knows of the graph now — the newest detections and focus, the
// scene statuses — and the rates derived from the runner's counters.
import CineGraph
import CineMedia
import Dispatch
import Synchronization

/// The newest frame's metadata and the scene statuses, shared by the node's thread and the
/// server's connections.
final class LiveState: Sendable {
    private struct State {
        var frame: ViewfinderFrame?
        /// Statuses from the frames (the scene input or the focus state) and from `scene` events.
        var frameScene: [String] = []
        var eventScene: [String] = []
        var scene: [String] { frameScene + eventScene.filter { !frameScene.contains($0) } }
        /// Recorder nodes recording now (from their `recording-started` and `movie-saved` events).
        var recording: Set<String> = []
        var lastRates: (wall: Double, viewfinder: Int, source: Int)?
        var rates: (viewfinder: Double, source: Double) = (0, 0)
    }

    private let state = Mutex(State())

    /// Records the newest frame; returns the scene statuses when the frame changed them.
    func update(_ frame: ViewfinderFrame) -> [String]? {
        let names = frame.scene?.names
        return state.withLock { s -> [String]? in
            s.frame = frame
            if let names, names != s.frameScene {
                s.frameScene = names
                return s.scene
            }
            return nil
        }
    }

    /// Sets the scene statuses from a `scene` event; returns the statuses now.
    func setScene(_ names: [String]) -> [String] {
        state.withLock {
            $0.eventScene = names
            return $0.scene
        }
    }

    /// The scene statuses now, from frames and events together (empty = normal).
    var scene: [String] { state.withLock { $0.scene } }

    /// Notes a recorder starting or finishing a file.
    func setRecording(_ node: String, _ on: Bool) {
        state.withLock { s in
            if on { s.recording.insert(node) } else { s.recording.remove(node) }
        }
    }

    /// Whether any recorder is recording now.
    var isRecording: Bool { state.withLock { !$0.recording.isEmpty } }

    /// The newest frame's record.
    var frame: ViewfinderFrame? { state.withLock { $0.frame } }

    /// Frames a second at the viewfinder and at the first source, over the time since the last
    /// call (at least half a second apart), and how far the viewfinder trails the source.
    func fps(summary: RunSummary, node: String) -> (viewfinder: Double, source: Double, lagSeconds: Double) {
        let mine = summary.nodes.first { $0.name == node }
        let source = Self.sourceInstant(of: summary)
        let lag = max(0, (source?.seconds ?? 0) - (mine?.lastTimestamp?.seconds ?? 0))
        return state.withLock { s in
            let first = summary.nodes.first { s in summary.edges.allSatisfy { $0.consumer.node != s.name } }
            let now = (wall: summary.wallSeconds, viewfinder: mine?.processed ?? 0, source: first?.processed ?? 0)
            if let last = s.lastRates {
                let dt = now.wall - last.wall
                guard dt >= 0.5 else { return (s.rates.viewfinder, s.rates.source, lag) }
                s.rates = (Double(now.viewfinder - last.viewfinder) / dt, Double(now.source - last.source) / dt)
            } else if now.wall > 0 {
                s.rates = (Double(now.viewfinder) / now.wall, Double(now.source) / now.wall)
            }
            s.lastRates = now
            return (s.rates.viewfinder, s.rates.source, lag)
        }
    }

    /// The newest instant of the graph's first source (a node nothing feeds).
    static func sourceInstant(of summary: RunSummary) -> Timestamp? {
        summary.nodes.first { s in summary.edges.allSatisfy { $0.consumer.node != s.name } }?.lastTimestamp
    }
}
