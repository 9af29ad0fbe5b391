// TestSupport: a running graph with a viewfinder on a free port, a small HTTP client, and the
// repository paths the tests write artefacts to.
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization

let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Where screenshots and other artefacts go (.build is ignored by git).
let artefactFolder: URL = {
    let u = repoRoot.appendingPathComponent(".build/test-artifacts/viewfinder")
    try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
    return u
}()

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Polls `condition` every 100 ms until it holds or `seconds` pass.
func eventually(_ seconds: Double, _ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw TestFailure("timed out after \(seconds) s waiting for \(what)")
}

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

/// A minimal HTTP client for the control API.
struct HTTP {
    let base: URL
    var token: String?

    struct Reply {
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var error: String { json["error"] as? String ?? "" }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(
        _ method: String, _ path: String, body: Data? = nil, contentType: String? = "application/json",
        headers: [String: String] = [:]
    ) async throws -> Reply {
        var r = URLRequest(url: URL(string: path, relativeTo: base)!)
        r.httpMethod = method
        r.timeoutInterval = 15
        if let token { r.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let contentType, body != nil { r.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (k, v) in headers { r.setValue(v, forHTTPHeaderField: k) }
        r.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: r)
        return Reply(status: (response as! HTTPURLResponse).statusCode, body: data)
    }

    func get(_ path: String) async throws -> Reply { try await request("GET", path) }

    func post(_ path: String, _ json: String) async throws -> Reply {
        try await request("POST", path, body: Data(json.utf8))
    }
}
