// NodeRunner: runs one node on its own thread — start, process joined instants, handle
// control requests between them, finish, and send end-of-stream downstream.
import CineMedia
import Foundation
import Logging
import Synchronization

/// A node that failed, with the frame and time it failed at.
public struct NodeFailure: Error, Sendable, CustomStringConvertible {
    public var node: String
    public var kind: String
    /// Where in the node's life it failed.
    public var phase: NodePhase
    public var frame: Int
    public var timestamp: Timestamp
    public var reason: String

    public var description: String {
        let at = phase == .process ? " at frame \(frame) (t=\(timestamp))" : " in \(phase.rawValue)"
        return "node '\(node)' (\(kind)) failed\(at): \(reason)"
    }
}

/// The three phases of a node's life in a graph.
public enum NodePhase: String, Sendable {
    /// `start`: opening files, devices, models.
    case start
    /// `process`: one instant at a time.
    case process
    /// `finish`: flushing what is held and closing files.
    case finish
}

/// Per-node counters, read by the status line and the summary.
public struct NodeStats: Sendable {
    public var name: String
    public var kind: String
    /// Instants processed.
    public var processed = 0
    /// Instants skipped because a required input had no value.
    public var skipped = 0
    /// Instants whose outputs were the last ones sent again, not computed (``Node/carriesForward``).
    public var carried = 0
    /// Total time inside `process`, in nanoseconds.
    public var busyNanoseconds: UInt64 = 0
    /// CPU time of the node's own thread inside `process`, in nanoseconds (work a node hands to
    /// other threads — a second band, an encoder's threads — is not counted).
    public var cpuNanoseconds: UInt64 = 0
    /// The longest `process` call, in nanoseconds.
    public var maxNanoseconds: UInt64 = 0
    /// The last instant processed.
    public var lastTimestamp: Timestamp?
    /// The first instant processed.
    public var firstTimestamp: Timestamp?
    public var finished = false

    /// Mean time per processed instant in milliseconds.
    public var meanMilliseconds: Double { processed == 0 ? 0 : Double(busyNanoseconds) / Double(processed) / 1e6 }
    /// Mean CPU time of the node's thread per processed instant in milliseconds.
    public var meanCPUMilliseconds: Double { processed == 0 ? 0 : Double(cpuNanoseconds) / Double(processed) / 1e6 }
}

/// How many complete instants wait in front of one node of the take that must process every
/// frame (a stabilizer, an encoder): what the take's carrying analysis watches to give way at once.
final class TakeBacklog: Sendable {
    let waiting = Atomic<Int>(0)
}

/// Where one output port's packets go.
struct OutputRoute {
    var targets: [(inbox: Inbox, port: Int)]
}

final class NodeRunner: @unchecked Sendable {
    let graphNode: GraphNode
    let inbox: Inbox
    var routes: [OutputRoute] = []
    private let stats: Mutex<NodeStats>
    private let logger: Logger
    private let stopFlag: StopFlag
    private let events: EventHub
    private let connectedOutputs: Set<String>
    private let onFailure: @Sendable (NodeFailure) -> Void
    private let done = DispatchSemaphore(value: 0)
    private let finishedFlag = Atomic<Bool>(false)

    private let control: GraphControl
    /// Instants behind from which a live take's analysis carries forward (0 = never; see ``Node/carriesForward``).
    private let carryBacklog: Int
    /// The last value sent on each output (kept only when the node may carry forward).
    private var lastOutputs: [(any Sendable)?]
    /// Under load the controller asks a carrying node to compute only one instant in this many
    /// and carry the others (1 = compute every instant it keeps up with).
    let carryStride = Atomic<Int>(1)
    /// Whether this node may carry forward at all (a live node of the take that declares it).
    var carries: Bool { carryBacklog > 0 }
    /// This node's own backlog, published when it is a live take node that processes every frame.
    var ownBacklog: TakeBacklog?
    /// The backlogs of the take's nodes that process every frame: a carrying node carries while
    /// any of them is its order's ``CarryOrder/takeBehind`` instants or more behind (the frames
    /// come first, at once; the depth gives way before the detections).
    var takeBacklogs: [TakeBacklog] = []
    /// Every this many instants a carrying node computes whatever the load: 1 s at 30 fps, so a
    /// carried map or detection list is never older than that (a person who walked in since is
    /// found). The same instants for every carrying node (they count the same stream), so a
    /// detector computing then reads a disparity map computed for that very frame.
    static let longestCarry = 30
    /// The forced computation of ``longestCarry`` yields while any take node is this many instants
    /// behind (a third of the take's 3 s queues): freshness of the analysis is worth a little, a
    /// frame of the take everything.
    static let takeInDanger = 30

    init(node: GraphNode, inbox: Inbox, connectedOutputs: Set<String>, logger: Logger, stopFlag: StopFlag,
         events: EventHub, control: GraphControl, carryBacklog: Int = 0,
         onFailure: @escaping @Sendable (NodeFailure) -> Void) {
        self.graphNode = node
        self.carryBacklog = carryBacklog
        self.lastOutputs = Array(repeating: nil, count: node.description.outputs.count)
        self.inbox = inbox
        self.connectedOutputs = connectedOutputs
        self.stats = Mutex(NodeStats(name: node.name, kind: node.description.kind))
        var l = logger
        l[metadataKey: "node"] = "\(node.name)"
        self.logger = l
        self.stopFlag = stopFlag
        self.events = events
        self.control = control
        self.onFailure = onFailure
    }

    var snapshot: NodeStats { stats.withLock { $0 } }
    var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }

    func start() {
        let thread = Thread { [self] in self.main() }
        thread.name = "cinegraph.\(graphNode.name)"
        thread.stackSize = 8 << 20
        thread.start()
    }

    func waitUntilDone() { done.wait() }

    /// Lowers the calling thread's scheduling priority to `nice` (Linux threads have their own
    /// niceness; raising it back needs privileges, lowering never does). Nothing elsewhere.
    static func setThreadNiceness(_ nice: Int32) {
        guard nice != 0 else { return }
        #if os(Linux)
        guard let tid = NodePriority.currentThreadID() else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), nice)
        #endif
    }

    private func main() {
        Self.setThreadNiceness(graphNode.priority.threadNiceness)
        let (instance, slots) = graphNode.instantiate()
        var node = instance
        var ctx = NodeContext(nodeName: graphNode.name, logger: logger, pool: ImagePool(),
                              connectedOutputs: connectedOutputs, connectedInputs: Set(graphNode.inputs.keys),
                              stopFlag: stopFlag, events: events,
                              graph: control) { [self] t, carried in self.emit(slots, at: t, carried: carried) }
        var phase = NodePhase.start
        do {
            try node.start(&ctx)
            phase = .process
            if graphNode.description.isSource {
                try runSource(&node, &ctx, slots)
            } else {
                try runFilter(&node, &ctx, slots)
            }
            phase = .finish
            try node.finish(&ctx)
        } catch {
            report(error, phase: phase, ctx: ctx)
            if phase == .process {
                let first = "\(error)"
                do { try node.finish(&ctx) } catch {
                    // A sink that failed writing usually fails finalising for the same reason: say it once.
                    if "\(error)" != first { report(error, phase: .finish, ctx: ctx) }
                }
            }
        }
        inbox.discard()
        for route in routes {
            for t in route.targets { t.inbox.push(Packet(timestamp: ctx.timestamp, body: .end), port: t.port) }
        }
        stats.withLock { $0.finished = true }
        finishedFlag.store(true, ordering: .releasing)
        done.signal()
    }

    private func report(_ error: any Error, phase: NodePhase, ctx: NodeContext) {
        let reason = "\(error)"
        onFailure(NodeFailure(node: graphNode.name, kind: graphNode.description.kind, phase: phase,
                              frame: ctx.frameIndex, timestamp: ctx.timestamp, reason: reason))
    }

    private func runSource(_ node: inout any Node, _ ctx: inout NodeContext, _ slots: NodeSlots) throws {
        while !ctx.ended && !stopFlag.isSet {
            let controls = inbox.takeControls()
            if !controls.isEmpty { handle(controls, &node, &ctx, slots) }
            if inbox.isAborted { return }
            ctx.idleNanoseconds = 0
            ctx.emittedInCall = false
            let t0 = DispatchTime.now().uptimeNanoseconds
            cpuAtStart = Self.threadCPUNanoseconds()
            try node.process(&ctx)
            let produced = slots.outputs.contains { $0.hasValue }
            if produced || ctx.emittedInCall {
                record(t0 + ctx.idleNanoseconds, ctx.timestamp)
                if produced { emit(slots, at: ctx.timestamp, carried: ctx.carried) }
                ctx.frameIndex += 1
            }
        }
    }

    private func runFilter(_ node: inout any Node, _ ctx: inout NodeContext, _ slots: NodeSlots) throws {
        // Port order in the inbox is the order of the node's declared inputs that are connected.
        let connected = slots.inputs.filter { graphNode.inputs[$0.name] != nil }
        let formatChecks = connected.enumerated().compactMap { i, slot in
            graphNode.formatChecks[slot.name].map { (index: i, name: slot.name, formats: $0) }
        }
        while true {
            switch inbox.next() {
            case .aborted, .end:
                return
            case .controls(let c):
                handle(c, &node, &ctx, slots)
            case .instant(let t, let values, let carried, let stale, let backlog):
                ctx.timestamp = t
                ctx.carried = carried
                ctx.carriedInputs = stale.map { Set(zip(connected, $0).filter(\.1).map(\.0.name)) } ?? []
                ownBacklog?.waiting.store(backlog, ordering: .relaxed)
                // A live take's analysis that has fallen behind: the older instants get its last
                // outputs, the newest is computed (the frames of the take are never lost to it).
                // Under load, one instant in `carryStride` is computed and the others carried.
                let stride = carryBacklog > 0 ? carryStride.load(ordering: .relaxed) : 1
                let takeWaiting = takeBacklogs.reduce(0) { max($0, $1.waiting.load(ordering: .relaxed)) }
                if carryBacklog > 0,
                   backlog >= carryBacklog || (stride > 1 && ctx.frameIndex % stride != 0)
                    || takeWaiting >= graphNode.description.carryOrder.takeBehind,
                   ctx.frameIndex % Self.longestCarry != 0 || takeWaiting >= Self.takeInDanger,
                   lastOutputs.contains(where: { $0 != nil }) {
                    stats.withLock { $0.carried += 1 }
                    carryForward(at: t, carried: carried)
                    ctx.frameIndex += 1
                    continue
                }
                if values.contains(where: { $0 == nil }) {
                    stats.withLock { $0.skipped += 1 }
                    emit(slots, at: t, carried: ctx.carried)
                    continue
                }
                for check in formatChecks {
                    try ImageFormatError.check(values[check.index], input: check.name, takes: check.formats)
                }
                for (slot, v) in zip(connected, values) { slot.set(v) }
                ctx.idleNanoseconds = 0
                ctx.emittedInCall = false
                let t0 = DispatchTime.now().uptimeNanoseconds
                cpuAtStart = Self.threadCPUNanoseconds()
                try node.process(&ctx)
                record(t0 + ctx.idleNanoseconds, t)
                for slot in connected { slot.set(nil) }
                if !ctx.emittedInCall || slots.outputs.contains(where: { $0.hasValue }) {
                    emit(slots, at: t, carried: ctx.carried)
                }
                ctx.frameIndex += 1
            }
        }
    }

    /// The CPU time the node's own thread has used, in nanoseconds.
    static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The thread's CPU time when the current `process` call began.
    private var cpuAtStart: UInt64 = 0

    private func record(_ t0: UInt64, _ t: Timestamp) {
        let end = DispatchTime.now().uptimeNanoseconds
        let dt = end > t0 ? end - t0 : 0
        let cpuNow = Self.threadCPUNanoseconds()
        let cpu = cpuNow > cpuAtStart ? cpuNow - cpuAtStart : 0
        stats.withLock { s in
            s.processed += 1
            s.cpuNanoseconds += cpu
            s.busyNanoseconds += dt
            s.maxNanoseconds = max(s.maxNanoseconds, dt)
            if s.firstTimestamp == nil { s.firstTimestamp = t }
            s.lastTimestamp = t
        }
    }

    private func emit(_ slots: NodeSlots, at t: Timestamp, carried: [String]) {
        for (i, slot) in slots.outputs.enumerated() {
            let value = slot.take()
            guard i < routes.count, !routes[i].targets.isEmpty else { continue }
            if carryBacklog > 0, let value { lastOutputs[i] = value }
            let body: PacketBody = value.map { .value($0) } ?? .skip
            for target in routes[i].targets { target.inbox.push(Packet(timestamp: t, body: body, carried: carried), port: target.port) }
        }
    }

    /// Sends the last value of each output again, stamped `t`, naming this node as carried.
    private func carryForward(at t: Timestamp, carried: [String]) {
        let marked = carried.contains(graphNode.name) ? carried : (carried + [graphNode.name]).sorted()
        for (i, value) in lastOutputs.enumerated() where i < routes.count {
            let body: PacketBody = value.map { .value($0) } ?? .skip
            for target in routes[i].targets { target.inbox.push(Packet(timestamp: t, body: body, carried: marked), port: target.port) }
        }
    }

    private func handle(_ controls: [PendingControl], _ node: inout any Node, _ ctx: inout NodeContext,
                        _ slots: NodeSlots) {
        for c in controls {
            switch c.message {
            case .set(let name, let text):
                let value = ConfigValue.scalar(text, SourceLocation(file: "control", line: 0, column: 0))
                do {
                    let now = try slots.set(name, value, kind: graphNode.description.kind)
                    c.reply(.success("\(graphNode.name).\(name) = \(now)"))
                } catch {
                    c.reply(.failure(error))
                }
            case .get(let name):
                do { c.reply(.success(try slots.get(name, kind: graphNode.description.kind))) } catch {
                    c.reply(.failure(error))
                }
            case .command(let command):
                do {
                    c.reply(.success(try node.handle(try graphNode.description.check(command), &ctx)))
                } catch {
                    c.reply(.failure(error))
                }
            }
        }
    }
}

