// Node: the protocol every processing node implements, and the context it runs in.
import CineMedia
import Dispatch
import Foundation
import Logging

/// A processing node: declares its ports and parameters with ``Input``, ``OutputInput``,
/// ``Output`` and ``Parameter``, and processes the packets of one instant at a time.
///
/// A node's state lives on its own executor (one thread per node, owned by the scheduler),
/// so a node needs no locks. The scheduler calls, in order: ``validate()`` (at load time, on
/// a configured instance that never runs), then on the running instance ``start(_:)``,
/// ``process(_:)`` once per joined instant (for a source: repeatedly, until it calls
/// ``NodeContext/endOfStream()`` or the graph drains), and ``finish(_:)`` when its inputs
/// have ended — the place to finalise files.
public protocol Node: SendableMetatype {
    /// The kind name used in configs (`kind: vignette`).
    static var kind: String { get }
    /// One line saying what the node does.
    static var summary: String { get }
    /// Longer documentation (Markdown), shown by `cinegraph nodes KIND` and in docs/nodes.md.
    static var details: String { get }
    /// The node commands it accepts through the control channel.
    static var commands: [CommandDescription] { get }

    /// Creates a node with default parameters. Must be cheap and have no side effects.
    init()
    /// Checks the configured parameters together (sizes agree, choices fit); throw ``ParameterError``.
    /// Static: it must not depend on this machine, so a config validates anywhere.
    func validate() throws
    /// Checks what the node needs from this machine (a camera present, an input file readable)
    /// before a run starts; throw ``ParameterError`` naming the parameter.
    func preflight() throws
    /// Checks the node against the nodes feeding it, once every node's own parameters are
    /// known: `upstream` maps each connected input to its producer. Throw ``ParameterError``
    /// naming one of this node's parameters, or one of a producer's (``ParameterError/node``;
    /// reported at its line in the config). A contract between two nodes
    /// is declared once, in the consumer, and checked when the graph loads.
    func validate(upstream: [String: UpstreamNode]) throws
    /// Whether this source produces packets in real time (a camera). Edges downstream of a live
    /// source drop the oldest packet instead of blocking, and count the drops.
    var isLive: Bool { get }
    /// What the kind's work serves (``NodePriority``): recording sinks say `.take`, previews and
    /// viewers `.preview`; `nil` (the default) inherits from the node's consumers.
    static var priority: NodePriority? { get }
    /// Parameters the load controller may turn down when the node is a preview and the machine
    /// is short (``NodeAdaptation``: the lighter values, from level 1 on; level 0 is the
    /// configured value). Empty by default.
    static var adaptations: [NodeAdaptation] { get }
    /// Whether the node's outputs may stand in for an instant it did not process: analysis
    /// (disparity, detections, a matte) whose last value is a fair guess for the next frame. In a
    /// live take, when such a node falls more than ``RunOptions/carryBacklog`` instants behind,
    /// the runtime sends its last outputs again for the older instants and processes the newest,
    /// so the frames of the take are never lost to a slow analysis; each carried instant names the
    /// node in ``NodeContext/carried`` downstream (sinks record it). `false` by default: a node
    /// whose output *is* the frame (a stabilizer, an encoder) must process every one.
    static var carriesForward: Bool { get }
    /// Where a carrying node gives way under load, relative to the take's other carrying nodes
    /// (``CarryOrder``): `.first` (the default: depth) or `.last` (who is where: detections).
    static var carryOrder: CarryOrder { get }
    /// Opens resources (pipelines, files) before the first packet.
    mutating func start(_ ctx: inout NodeContext) throws
    /// Processes one instant: read inputs, assign outputs.
    mutating func process(_ ctx: inout NodeContext) throws
    /// Called once the inputs have ended (or a source has ended): flush and finalise.
    mutating func finish(_ ctx: inout NodeContext) throws
    /// Handles a node command from the control channel; returns a short reply.
    mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String
}

extension Node {
    public static var details: String { "" }
    public static var commands: [CommandDescription] { [] }
    public func validate() throws {}
    public func preflight() throws {}
    public func validate(upstream: [String: UpstreamNode]) throws {}
    public var isLive: Bool { false }
    public static var priority: NodePriority? { nil }
    public static var adaptations: [NodeAdaptation] { [] }
    public static var carriesForward: Bool { false }
    public static var carryOrder: CarryOrder { .first }
    public mutating func start(_ ctx: inout NodeContext) throws {}
    public mutating func finish(_ ctx: inout NodeContext) throws {}
    public mutating func handle(_ command: NodeCommand, _ ctx: inout NodeContext) throws -> String {
        throw NodeCommandError("node kind '\(Self.kind)' has no command '\(command.name)'")
    }
}

/// A command that a node could not carry out.
public struct NodeCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What a node sees of the graph while it runs: the current instant, its name, a logger,
/// an image pool, and ways to end a stream or post an event.
public struct NodeContext {
    /// The node's name in the graph.
    public let nodeName: String
    /// The instant being processed. Sources set it before assigning outputs.
    public var timestamp: Timestamp = .zero
    /// How many instants this node has had before this one: processed, or carried forward under
    /// load (``Node/carriesForward``) — so it keeps counting the frames of the stream when the
    /// node computes only some of them. Instants skipped for a missing input do not count.
    public internal(set) var frameIndex: Int = 0
    /// The nodes whose outputs were carried forward (not computed) for the instant being
    /// processed, upstream of this node (``Node/carriesForward``), sorted; empty when everything
    /// was computed. Packets this node sends carry it on. A node that holds instants back and
    /// sends them later (a lookahead) sets it to the held instant's before emitting it.
    public var carried: [String] = []
    /// The inputs whose value for this instant was carried forward (an earlier frame's).
    var carriedInputs: Set<String> = []
    /// A logger labelled with the node's name.
    public let logger: Logger
    /// A pool for the images this node produces.
    public let pool: ImagePool
    let connectedOutputs: Set<String>
    let connectedInputs: Set<String>
    let stopFlag: StopFlag
    /// Time spent in ``pace(until:)`` during the current call, excluded from the node's busy time.
    var idleNanoseconds: UInt64 = 0
    var paceOrigin: UInt64?
    let events: EventHub
    var ended = false
    /// Sends the outputs assigned so far downstream, stamped with the given instant.
    let emitter: (Timestamp, [String]) -> Void
    /// Whether ``emit(at:)`` was called during the current call.
    var emittedInCall = false
    /// The running graph: send commands to other nodes, subscribe to events, read counters.
    public let graph: GraphControl
    /// What ``pace(until:)`` waits on: the machine's clock in a graph, a manual one in the harness.
    public let clock: any NodeClock

    init(nodeName: String, logger: Logger, pool: ImagePool, connectedOutputs: Set<String>, connectedInputs: Set<String>,
         stopFlag: StopFlag, events: EventHub, graph: GraphControl, clock: any NodeClock = SystemNodeClock(),
         emitter: @escaping (Timestamp, [String]) -> Void) {
        self.nodeName = nodeName
        self.logger = logger
        self.pool = pool
        self.connectedOutputs = connectedOutputs
        self.connectedInputs = connectedInputs
        self.stopFlag = stopFlag
        self.events = events
        self.graph = graph
        self.clock = clock
        self.emitter = emitter
    }

    /// Sends the outputs assigned so far as one packet stamped `time`, and clears them.
    ///
    /// For nodes that hold frames back (a stabilizer with lookahead): a packet keeps the instant it
    /// describes, several may leave in one call, and ``Node/finish(_:)`` may flush what is held.
    /// Stamps must increase from packet to packet. Outputs not assigned are sent as a skip. When a
    /// call has used `emit`, nothing more is sent for it unless outputs are assigned again.
    public mutating func emit(at time: Timestamp) {
        emitter(time, carried)
        emittedInCall = true
    }

    /// Whether an input's value for this instant was carried forward from an earlier frame under
    /// load (``Node/carriesForward``): `ctx.isCarried($disparity)` — a map that no longer shows
    /// where a person who moved now stands.
    public func isCarried<Value>(_ port: Port<Value>) -> Bool { carriedInputs.contains(port.name) }

    /// Whether an output feeds any other node (skip work nobody reads): `ctx.isConnected($video)`.
    public func isConnected<Value>(_ port: Port<Value>) -> Bool { connectedOutputs.contains(port.name) }

    /// Whether an input is wired to a producer in the graph: `ctx.isWired($sound)`. An optional
    /// input is `nil` both when it is left out and when its producer skipped this instant; this
    /// tells the two apart (a recorder that must open a track before the first packet comes).
    public func isWired<Value>(_ port: Port<Value>) -> Bool { connectedInputs.contains(port.name) }

    /// For sources: there will be no more packets. `finish` follows.
    public mutating func endOfStream() { ended = true }

    /// For live sources: sleeps until `time` has passed on ``clock``, counted from the first
    /// call (so frames come out in real time). The wait does not count as processing time.
    /// Returns early when the graph is stopping.
    public mutating func pace(until time: Timestamp) {
        let now = clock.nowNanoseconds
        guard let origin = paceOrigin else {
            paceOrigin = now &- UInt64(max(0, time.nanoseconds))
            return
        }
        let due = origin &+ UInt64(max(0, time.nanoseconds))
        guard due > now else { return }
        let stop = stopFlag
        clock.sleep(until: due) { stop.isSet }
        idleNanoseconds += clock.nowNanoseconds &- now
    }

    /// Whether the graph is draining (a signal or an error elsewhere): sources should end soon.
    public var isStopRequested: Bool { stopFlag.isSet }

    /// Posts an event (for example "still saved") to the control channel's subscribers.
    public func post(_ name: String, _ fields: [String: String] = [:]) {
        events.publish(GraphEvent(node: nodeName, name: name, timestamp: timestamp, fields: fields))
    }
}

/// A node feeding another, as ``Node/validate(upstream:)`` sees it.
public struct UpstreamNode: Sendable {
    /// The producer's name in the graph.
    public var name: String
    /// Its kind.
    public var kind: String
    /// The output the input is connected to.
    public var output: String
    /// Every parameter's value as text (defaults included), by config name.
    public var parameters: [String: String]

    /// Creates a description of a producer.
    public init(name: String, kind: String, output: String, parameters: [String: String]) {
        self.name = name
        self.kind = kind
        self.output = output
        self.parameters = parameters
    }
}
