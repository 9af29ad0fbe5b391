// RenderJob: the editor's Render button — the take rendered through the same graph as
// `cinegraph render`, on a thread of its own, with its progress readable at any time.
import CineGraph
import CineMedia
import CineNodes
import Foundation
import Logging
import Synchronization

/// One render at a time of the take being edited, in the background.
public final class RenderJob: Sendable {
    /// Where the render stands.
    public struct Status: Sendable, Codable, Hashable {
        /// `idle`, `running`, `done` or `failed`.
        public var state = "idle"
        /// Frames written, and of how many.
        public var done = 0
        public var total = 0
        /// The movie being (or last) written.
        public var output: String?
        /// Why the render failed.
        public var error: String?
        /// Seconds since the render started (to its end when finished).
        public var seconds = 0.0
    }

    private let status = Locked(Status())
    private let logger: Logger

    /// A render job; the graph's log goes to `logger`.
    public init(logger: Logger = Logger(label: "cinegraph.edit.render")) { self.logger = logger }

    /// Where the render stands now.
    public var current: Status { status.withLock { $0 } }

    /// Starts rendering `request` (`total` frames); returns at once.
    /// - Throws: `conflict` while a render runs; `invalid` when the graph cannot be built.
    public func start(_ request: RenderGraph.Request, header: AssetHeader, first: AssetFrameRecord, total: Int) throws(EditError) {
        let claimed = status.withLock { s -> Bool in
            if s.state == "running" { return false }
            s = Status(state: "running", done: 0, total: total, output: request.output)
            return true
        }
        guard claimed else { throw EditError(.conflict, "a render is already running; wait for it to finish") }
        let graph: Graph
        do {
            graph = try Graph.build(RenderGraph.spec(request, header: header, first: first), registry: .standard(),
                                    preflight: true)
        } catch {
            status.withLock { $0.state = "failed"; $0.error = "\(error)" }
            throw EditError(.invalid, "the render cannot start: \(error)")
        }
        var options = RunOptions()
        options.logger = logger
        let runner = GraphRunner(graph: graph, options: options)
        let started = Date()
        let thread = Thread { [status] in
            runner.start()
            while !runner.isFinished {
                Thread.sleep(forTimeInterval: 0.2)
                let n = runner.summary().nodes.first { $0.name == RenderGraph.progressNode }?.processed ?? 0
                status.withLock { $0.done = n; $0.seconds = Date().timeIntervalSince(started) }
            }
            let summary = runner.wait()
            let n = summary.nodes.first { $0.name == RenderGraph.progressNode }?.processed ?? 0
            status.withLock { s in
                s.done = n
                s.seconds = Date().timeIntervalSince(started)
                if let failure = summary.failures.first {
                    s.state = "failed"
                    s.error = "\(failure)"
                } else {
                    s.state = "done"
                }
            }
        }
        thread.name = "cinegraph.edit.render"
        thread.start()
    }
}

/// A value behind a lock, shared by reference (a thread started by the job keeps it).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R { try mutex.withLock { try body(&$0) } }
}
