// NodeHarness: drives one node with no scheduler and no threads — push the packets of an
// instant in, get back every packet it sent. The test bench every node's tests use.
import CineMedia
import Logging

/// Runs a single node synchronously, like SwiftNIO's `EmbeddedChannel`.
///
/// ```swift
/// var h = try NodeHarness(Vignette.self, parameters: ["strength": "0.8"])
/// try h.start()
/// let sent = try h.process([\.$video: frame], at: .zero)
/// let image: Image? = sent[\.$out]
/// ```
///
/// One output path: each call that runs the node (``process(_:at:)``, ``finish()``) returns
/// ``SentPackets``, every packet the node sent since the previous such call, oldest first —
/// those sent with ``NodeContext/emit(at:)`` (a node holding a lookahead) and the instant's own
/// outputs, in the order a graph would pass them on.
public struct NodeHarness<N: Node> {
    private var node: N
    private let slots: NodeSlots
    private var context: NodeContext
    private let hub = EventHub()
    private let collected = EventLog()
    private let queue = SentQueue()

    /// The clock the node paces by: manual, so a live source's `pace` returns at once with the
    /// clock moved to the frame's instant (no test sleeps); advance it to simulate waiting.
    public let clock: ManualNodeClock

    /// Creates the node and applies `parameters` (config text, parsed and range-checked; a bad
    /// one throws ``NodeParameterError``). `connectedOutputs` are the outputs that feed someone
    /// (all by default); `connectedInputs` the inputs wired to a producer (the required ones by
    /// default: ``NodeContext/isWired(_:)``).
    public init(_ type: N.Type = N.self, parameters: [String: String] = [:], connectedOutputs: Set<String>? = nil,
                connectedInputs: Set<String>? = nil, clock: ManualNodeClock = ManualNodeClock()) throws {
        self.clock = clock
        node = N()
        slots = NodeSlots(of: node)
        for (name, text) in parameters { try slots.set(name, .text(text), kind: N.kind) }
        let log = collected
        hub.subscribe { log.append($0) }
        let outputs = slots.outputs
        let queue = queue
        context = NodeContext(nodeName: N.kind, logger: Logger(label: "harness.\(N.kind)"), pool: ImagePool(),
                              connectedOutputs: connectedOutputs ?? Set(slots.outputs.map(\.name)),
                              connectedInputs: connectedInputs ?? Set(slots.inputs.filter { !$0.optional }.map(\.name)),
                              stopFlag: StopFlag(), events: hub, graph: GraphControl(nodes: [], events: hub),
                              clock: clock) { t, _ in
            var out: [String: any Sendable] = [:]
            for slot in outputs { if let v = slot.take() { out[slot.name] = v } }
            queue.append(UntypedPacket(timestamp: t, outputs: out))
        }
        try node.validate()
    }

    /// Calls `start`.
    public mutating func start() throws { try node.start(&context) }

    /// Sets the inputs of one instant (by port handle: `[\.$video: frame]`), calls `process`
    /// once, and returns what the node sent: packets it emitted for earlier instants, then this
    /// instant's outputs if it assigned any. A value of another type than its port's throws.
    @discardableResult
    public mutating func process(_ inputs: PortValues<N> = [:], at time: Timestamp = .zero) throws
        -> SentPackets<N>
    {
        let given = try inputs.byName(node)
        for slot in slots.inputs {
            if let v = given[slot.name] {
                guard type(of: v) == slot.valueType else {
                    throw ControlError("input '\(slot.name)' takes \(slot.valueType), got \(type(of: v))")
                }
                if let formats = slot.formats { try ImageFormatError.check(v, input: slot.name, takes: formats) }
                slot.set(v)
            } else if !slot.optional {
                throw ControlError("input '\(slot.name)' is required")
            }
        }
        if !slots.inputs.isEmpty { context.timestamp = time }
        defer { for slot in slots.inputs { slot.set(nil) } }
        try node.process(&context)
        context.frameIndex += 1
        var out: [String: any Sendable] = [:]
        for slot in slots.outputs { if let v = slot.take() { out[slot.name] = v } }
        if !out.isEmpty { queue.append(UntypedPacket(timestamp: context.timestamp, outputs: out)) }
        return SentPackets(queue.take(), node: node)
    }

    /// The timestamp of the last instant (what a source set).
    public var timestamp: Timestamp { context.timestamp }

    /// Whether a source has called `endOfStream()`.
    public var hasEnded: Bool { context.ended }

    /// Calls `finish` and returns what the node flushed (packets it held for a lookahead).
    @discardableResult
    public mutating func finish() throws -> SentPackets<N> {
        try node.finish(&context)
        return SentPackets(queue.take(), node: node)
    }

    /// Sends a node command, checked against the kind's declaration as the graph checks it.
    public mutating func command(_ command: NodeCommand) throws -> String {
        try node.handle(try NodeDescription(N.self).check(command), &context)
    }

    /// Sets a parameter by config name from text, as the control channel does; throws
    /// ``NodeParameterError``.
    public mutating func set(_ name: String, _ text: String) throws(NodeParameterError) {
        try slots.set(name, .text(text), kind: N.kind)
    }

    /// Events the node posted.
    public var events: [GraphEvent] { collected.events }

    /// The node itself, for inspection.
    public var instance: N { node }
}

/// One packet a node sent: its instant and what each output carried, read by the output's
/// handle: `packet[\.$video]` is an `Image?`.
public struct SentPacket<N: Node> {
    /// The instant the packet belongs to.
    public let timestamp: Timestamp
    let outputs: [String: any Sendable]
    let node: N
    /// What an output carried, by its handle (`nil` when the output was not assigned).
    public subscript<Value>(_ port: KeyPath<N, Port<Value>>) -> Value? {
        outputs[node[keyPath: port].name].map { $0 as! Value }
    }
    /// The names of the outputs the packet carried.
    public var portNames: Set<String> { Set(outputs.keys) }
}

/// The packets a node sent during one harness call, oldest first.
///
/// A collection of ``SentPacket``; subscripting by an output's handle reads the newest packet
/// that carried that output, which for a node without a lookahead is the instant's own:
/// `sent[\.$video]` is an `Image?`.
public struct SentPackets<N: Node>: RandomAccessCollection {
    /// The packets, oldest first.
    public let packets: [SentPacket<N>]
    init(_ packets: [UntypedPacket], node: N) {
        self.packets = packets.map { SentPacket(timestamp: $0.timestamp, outputs: $0.outputs, node: node) }
    }
    public var startIndex: Int { packets.startIndex }
    public var endIndex: Int { packets.endIndex }
    public subscript(position: Int) -> SentPacket<N> { packets[position] }
    /// The newest value sent on an output, by its handle.
    public subscript<Value>(_ port: KeyPath<N, Port<Value>>) -> Value? {
        packets.last { $0[port] != nil }?[port]
    }
}

/// The inputs of one instant for ``NodeHarness/process(_:at:)``, by port handle:
/// `[\.$image: frame, \.$disparity: map]`. Each value's type is checked against its port's.
public struct PortValues<N: Node>: ExpressibleByDictionaryLiteral {
    private var entries: [(PartialKeyPath<N>, any Sendable)]
    public init(dictionaryLiteral elements: (PartialKeyPath<N>, any Sendable)...) { entries = elements }
    /// The value given for an input, by its handle; setting `nil` removes it.
    public subscript<Value>(_ port: KeyPath<N, Port<Value>>) -> Value? {
        get { entries.last { $0.0 == port }.map { $0.1 as! Value } }
        set {
            entries.removeAll { $0.0 == port }
            if let newValue { entries.append((port, newValue)) }
        }
    }
    /// The values by port name; a key path that does not lead to a port throws.
    func byName(_ node: N) throws -> [String: any Sendable] {
        var out: [String: any Sendable] = [:]
        for (key, value) in entries {
            guard let port = node[keyPath: key] as? any PortNaming else {
                throw ControlError("\(key) is not a port of node kind '\(N.kind)'")
            }
            out[port.name] = value
        }
        return out
    }
}

/// What a packet carried before the harness types it.
struct UntypedPacket {
    let timestamp: Timestamp
    let outputs: [String: any Sendable]
}

final class SentQueue: @unchecked Sendable {
    private var list: [UntypedPacket] = []
    func append(_ packet: UntypedPacket) { list.append(packet) }
    func take() -> [UntypedPacket] {
        defer { list.removeAll() }
        return list
    }
}

final class EventLog: @unchecked Sendable {
    private var list: [GraphEvent] = []
    func append(_ e: GraphEvent) { list.append(e) }
    var events: [GraphEvent] { list }
}
