// TestSupport: a running graph with a viewfinder on a free port, a small HTTP client, and the
// repository paths the tests write artefacts to.
import CineGraph
import CineMedia
import CineNodes
import CineTestSupport
import CineViewfinder
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization

let repoRoot = TestArtefacts.repoRoot

/// Where screenshots and other artefacts go (.build is ignored by git).
let artefactFolder = TestArtefacts.web

/// A graph running on its own threads, with the viewfinder's URL once it listens.
final class RunningGraph: Sendable {
    let runner: GraphRunner
    let url: URL
    let events: EventLog

    /// The events the graph posted, appended from nodes' threads.
    final class EventLog: Sendable {
        private let list = Mutex<[GraphEvent]>([])
        func append(_ e: GraphEvent) { list.withLock { $0.append(e) } }
        var all: [GraphEvent] { list.withLock { $0 } }
    }

    /// A synthetic live camera → focus (ground-truth detections and disparity) → viewfinder,
    /// plus a still node writing into `stillFolder`. `extra` adds YAML lines under `nodes:`.
    static func standardYAML(stillFolder: String, viewfinder: String = "", extra: String = "") -> String {
        """
        graph: viewfinder-test
        nodes:
          camera:
            kind: synthetic
            size: 320x180
            fps: 15
            subjects: 2
            noise: 0
          focus:
            kind: focus
            detections: camera.detections
            disparity: camera.disparity
            dwell: 0.2s
          still:
            kind: still
            image: camera.left
            path: "\(stillFolder)/still-{index}.jpg"
          view:
            kind: viewfinder
            video: camera.left
            detections: focus.detections
            focus: focus.focus
            port: 0
        \(viewfinder)
        \(extra)
        """
    }

    /// A `movie` node recording the camera to `path`, as `extra` lines for ``standardYAML(stillFolder:viewfinder:extra:)``.
    static func movieYAML(path: String) -> String {
        """
              movie:
                kind: movie
                video: camera.left
                path: "\(path)"
            """
    }

    private init(runner: GraphRunner, url: URL, events: EventLog) {
        self.runner = runner
        self.url = url
        self.events = events
    }

    /// Starts the graph and waits (without blocking a thread: the server needs the cooperative
    /// pool to start) until the viewfinder reports its URL.
    static func start(yaml: String, registry: NodeRegistry = NodeRegistry.standard().withViewfinder()) async throws -> RunningGraph {
        let graph = try Graph.parse(yaml, registry: registry, preflight: true)
        let runner = GraphRunner(graph: graph)
        let found = Mutex<String?>(nil)
        let events = EventLog()
        runner.subscribe { e in
            events.append(e)
            if e.name == "viewfinder-ready" { found.withLock { $0 = e.fields["url"] } }
        }
        runner.start()
        do {
            try await eventually(20, "the viewfinder's URL") { found.withLock { $0 } != nil }
        } catch {
            runner.abort()
            throw TestFailure("\(error); failures: \(runner.summary().failures)")
        }
        return RunningGraph(runner: runner, url: URL(string: found.withLock { $0 }!)!, events: events)
    }

    /// Runs `body` with the graph running, then stops it, whether `body` succeeds or throws.
    static func with<T>(
        yaml: String, registry: NodeRegistry = NodeRegistry.standard().withViewfinder(), _ body: (RunningGraph) async throws -> T
    ) async throws -> T {
        let graph = try await start(yaml: yaml, registry: registry)
        do {
            let result = try await body(graph)
            await graph.stop()
            return result
        } catch {
            await graph.stop()
            throw error
        }
    }

    /// Drains the graph (bounded: aborts after 20 s) and returns its summary.
    @discardableResult
    func stop() async -> RunSummary {
        runner.drain()
        let deadline = Date().addingTimeInterval(20)
        while !runner.isFinished && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if !runner.isFinished { runner.abort() }
        return runner.summary()
    }

    /// Frames the viewfinder node has processed so far.
    var viewfinderFrames: Int { runner.summary().nodes.first { $0.kind == "viewfinder" }?.processed ?? 0 }
}
