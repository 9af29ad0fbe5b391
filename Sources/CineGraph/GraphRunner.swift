// GraphRunner: runs a validated graph — one thread per node, bounded edges, EOS drain,
// orderly stop on request, abort, control channel and statistics.
import CineMedia
import Foundation
import Logging
import Synchronization

/// Settings of a run.
public struct RunOptions: Sendable {
    /// Queue length of a live edge into a preview node (drop-oldest when full): the newest
    /// frame wins.
    public var liveQueueCapacity = 3
    /// Queue length of a live edge into a node of the take (drop-oldest only when full): 3 s at
    /// 30 fps, enough for an encoder's start (≈ 0.65 s for x264 at 1080p) or a browser starting
    /// beside the take. Costs memory only while a consumer is behind (a 1080p frame is 3 MB, a
    /// stereo pair 6 MB); the take's analysis carries forward long before its queue is deep
    /// (``carryBacklog``), so in practice only the nodes that must process every frame fill theirs.
    public var liveTakeQueueCapacity = 90
    /// Complete instants waiting behind the current one from which a live take's analysis node
    /// (``Node/carriesForward``) sends its last outputs for that instant instead of computing it:
    /// 3 is 0.1 s at 30 fps. 0 turns carrying off (a slow analysis then loses frames of the take
    /// once its queue is full).
    public var carryBacklog = 3
    /// Whether a live graph's preview nodes are turned down under load (``LoadPolicy``).
    public var adaptive = true
    /// The load controller's tick, in seconds.
    public var loadTick = 0.5
    /// Queue length of a live edge into a node with several inputs: it must hold packets while
    /// the slowest branch into the same node catches up (the join discards what cannot match).
    public var liveJoinQueueCapacity = 16
    /// Queue length of an offline edge (the producer waits when full).
    public var offlineQueueCapacity = 4
    /// The logger nodes log through.
    public var logger = Logger(label: "cinegraph")
    /// Creates default options.
    public init() {}
}

/// What a finished run reports: per-node and per-edge counters, wall time, the first failure.
public struct RunSummary: Sendable {
    public var nodes: [NodeStats]
    public var edges: [EdgeStats]
    /// Wall-clock seconds from start to the last node finishing.
    public var wallSeconds: Double
    /// Every node failure, in the order they happened.
    public var failures: [NodeFailure]
    /// Whether the run was stopped by ``GraphRunner/drain()`` or ``GraphRunner/abort()`` rather than ending on its own.
    public var wasStopped: Bool
    /// The load controller's level now (0 = previews at full work; see ``LoadPolicy``).
    public var loadLevel = 0
    /// The highest level reached during the run.
    public var peakLoadLevel = 0
    /// Under load, the take's depth (``CarryOrder/first``) is computed on one frame in this many
    /// and carried on the others (1 = every frame it keeps up with; ``Node/carriesForward``).
    public var takeAnalysisStride = 1
    /// The largest stride of the run.
    public var peakTakeAnalysisStride = 1
    /// The same for the take's detections (``CarryOrder/last``), which give way later.
    public var takeDetectionStride = 1
    /// Instants whose analysis was carried forward, over every node.
    public var totalCarried: Int { nodes.reduce(0) { $0 + $1.carried } }
    /// Packets dropped on live edges, in all.
    public var totalDrops: Int { edges.reduce(0) { $0 + $1.dropped } }
    /// Packets lost on live edges into nodes of the take (what the recording lost).
    public var takeDrops: Int { edges.filter { $0.priority == .take }.reduce(0) { $0 + $1.dropped } }
    /// Packets shed on live edges into preview nodes (previews giving way).
    public var previewDrops: Int { edges.filter { $0.priority == .preview }.reduce(0) { $0 + $1.dropped } }
}

/// Runs a ``Graph``.
///
/// ```swift
/// let runner = GraphRunner(graph: graph)
/// try runner.start()
/// runner.send(.set(parameter: "aperture", value: "2.8"), to: "bokeh") { print($0) }
/// let summary = runner.wait()
/// ```
/// Nodes start in reverse topological order (sinks first, so they are ready before packets
/// arrive). ``drain()`` ends the sources; end-of-stream then flows down every edge and each
/// node finishes — sinks finalise their files. A node that fails ends the run the same way.
public final class GraphRunner: Sendable {
    /// The graph being run.
    public let graph: Graph
    private let runners: [String: NodeRunner]
    private let order: [String]
    private let stopFlag = StopFlag()
    private let stopped = Atomic<Bool>(false)
    private let events = EventHub()
    private let failures = FailureList()
    private let startTime = Mutex<UInt64>(0)
    private let logger: Logger
    private let load: LoadController?
    private let loadTick: Double
    /// The control channel, also handed to every node as ``NodeContext/graph``.
    public let control: GraphControl

    /// Prepares the graph's nodes and edges; nothing runs until ``start()``.
    public init(graph: Graph, options: RunOptions = RunOptions()) {
        self.graph = graph
        self.logger = options.logger
        let consumers = graph.consumers
        var inboxes: [String: Inbox] = [:]
        var portIndex: [PortReference: Int] = [:]
        for n in graph.nodes {
            var edges: [EdgeStats] = []
            let joins = n.inputs.count > 1
            for input in n.description.inputs {
                guard let source = n.inputs[input.name] else { continue }
                let live = graph.node(named: source.node)?.isLive ?? false
                portIndex[PortReference(node: n.name, port: input.name)] = edges.count
                let liveCapacity = n.priority == .take
                    ? max(options.liveTakeQueueCapacity, joins ? options.liveJoinQueueCapacity : 0)
                    : (joins ? options.liveJoinQueueCapacity : options.liveQueueCapacity)
                edges.append(EdgeStats(consumer: PortReference(node: n.name, port: input.name), producer: source,
                                       policy: live ? .dropOldest : .block,
                                       capacity: live ? liveCapacity : options.offlineQueueCapacity,
                                       priority: n.priority))
            }
            inboxes[n.name] = Inbox(edges: edges, newestWins: n.priority == .preview && edges.contains { $0.policy == .dropOldest })
        }
        var runners: [String: NodeRunner] = [:]
        /// Whether the node's inputs are live edges (downstream of a live source).
        func isLive(_ n: GraphNode) -> Bool { inboxes[n.name]!.stats.contains { $0.policy == .dropOldest } }
        let control = GraphControl(nodes: graph.nodes, events: events)
        let failures = self.failures
        let stopFlag = self.stopFlag
        let log = options.logger
        for n in graph.nodes {
            let connected = Set(n.description.outputs.map(\.name).filter {
                !(consumers[PortReference(node: n.name, port: $0)] ?? []).isEmpty
            })
            // Only a live node of the take carries forward: offline edges wait, previews shed.
            let carries = n.description.carriesForward && n.priority == .take && isLive(n)
            let runner = NodeRunner(node: n, inbox: inboxes[n.name]!, connectedOutputs: connected,
                                    logger: options.logger, stopFlag: stopFlag, events: events,
                                    control: control, carryBacklog: carries ? options.carryBacklog : 0) { failure in
                log.info("\(failure.description)")
                failures.append(failure)
                stopFlag.set()
            }
            runner.routes = n.description.outputs.map { out in
                let targets = (consumers[PortReference(node: n.name, port: out.name)] ?? []).map {
                    (inbox: inboxes[$0.node]!, port: portIndex[$0]!)
                }
                return OutputRoute(targets: targets)
            }
            runners[n.name] = runner
        }
        self.runners = runners
        self.order = graph.nodes.map(\.name)
        self.control = control
        let carriers = runners.values.filter(\.carries)
        if !carriers.isEmpty {
            // The take's nodes that must process every frame, watched by the carrying ones.
            let mustProcess = graph.nodes.filter { n in
                n.priority == .take && !n.description.carriesForward && isLive(n)
            }
            let backlogs = mustProcess.map { n in
                let b = TakeBacklog()
                runners[n.name]!.ownBacklog = b
                return b
            }
            for r in carriers { r.takeBacklogs = backlogs }
        }
        self.load = options.adaptive
            ? LoadController(graph: graph, carriers: carriers.map { ($0.graphNode.name, $0.graphNode.description.carryOrder) }) { order, stride in
                for r in carriers where r.graphNode.description.carryOrder == order { r.carryStride.store(stride, ordering: .relaxed) }
            }
            : nil
        self.loadTick = options.loadTick
        control.connect(runners) { [weak self] in self?.summary() }
    }

    /// Starts every node's thread.
    public func start() {
        startTime.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        for name in order.reversed() { runners[name]!.start() }
        // Weak: the controller's thread may wake once more after the runner is gone.
        load?.run(interval: loadTick, summary: { [weak self] in self?.summary() }, control: control, events: events,
                  finished: { [weak self] in self.map { $0.isFinished || $0.stopped.load(ordering: .acquiring) } ?? true })
    }

    /// Blocks until every node has finished; returns the summary (failures included).
    public func wait() -> RunSummary {
        for name in order { runners[name]!.waitUntilDone() }
        return summary()
    }

    /// Waits without blocking a thread of the caller's executor.
    public func finished() async -> RunSummary {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait()) }.start()
        }
    }

    /// Starts, waits, and throws the first node failure if there was one.
    @discardableResult
    public func run() throws -> RunSummary {
        start()
        let s = wait()
        if let f = s.failures.first { throw f }
        return s
    }

    /// Starts an orderly stop: sources end, end-of-stream flows through, sinks finalise.
    public func drain() {
        stopped.store(true, ordering: .releasing)
        stopFlag.set()
    }

    /// Stops at once: queues are abandoned, nodes return without processing what is queued.
    /// Sinks still get `finish` so they can close what they can.
    public func abort() {
        stopped.store(true, ordering: .releasing)
        stopFlag.set()
        for r in runners.values { r.inbox.abort() }
    }

    /// Whether every node has finished.
    public var isFinished: Bool { runners.values.allSatisfy(\.isFinished) }

    /// Sends a control message to node `node`; `reply` is called on that node's thread.
    public func send(_ message: ControlMessage, to node: String,
                     reply: @escaping @Sendable (Result<String, any Error>) -> Void) {
        control.send(message, to: node, reply: reply)
    }

    /// Sends a control message and waits for the reply.
    public func send(_ message: ControlMessage, to node: String) async throws -> String {
        try await withCheckedThrowingContinuation { c in
            send(message, to: node) { c.resume(with: $0) }
        }
    }

    /// Calls `handler` for every event a node posts (on that node's thread: return quickly).
    public func subscribe(_ handler: @escaping @Sendable (GraphEvent) -> Void) { events.subscribe(handler) }

    /// Counters now, for a status line.
    public func summary() -> RunSummary {
        let now = DispatchTime.now().uptimeNanoseconds
        let t0 = startTime.withLock { $0 }
        return RunSummary(nodes: order.map { runners[$0]!.snapshot },
                          edges: order.flatMap { runners[$0]!.inbox.snapshot() },
                          wallSeconds: t0 == 0 ? 0 : Double(now - t0) / 1e9,
                          failures: failures.all,
                          wasStopped: stopped.load(ordering: .acquiring),
                          loadLevel: load?.currentLevel ?? 0, peakLoadLevel: load?.peakLevel ?? 0,
                          takeAnalysisStride: load.map { $0.stride(atLevel: $0.currentLevel) } ?? 1,
                          peakTakeAnalysisStride: load.map { $0.stride(atLevel: $0.peakLevel) } ?? 1,
                          takeDetectionStride: load.map { $0.stride(.last, atLevel: $0.currentLevel) } ?? 1)
    }
}

/// The failures of a run, appended from any node's thread.
final class FailureList: Sendable {
    private let list = Mutex<[NodeFailure]>([])
    func append(_ f: NodeFailure) { list.withLock { $0.append(f) } }
    var all: [NodeFailure] { list.withLock { $0 } }
}
