// NodeHarness: drives one node with no scheduler and no threads — push the packets of an
// instant in, collect what it outputs. The test bench every node's tests use.
import CineMedia
import Logging

/// Runs a single node synchronously, like SwiftNIO's `EmbeddedChannel`.
///
/// ```swift
/// var h = try NodeHarness(Vignette.self, parameters: ["strength": "0.8"])
/// try h.start()
/// let out = try h.process(["video": frame], at: .zero)
/// let image = out["out"] as! Image
/// ```
public struct NodeHarness<N: Node> {
    private var node: N
    private let slots: NodeSlots
    private var context: NodeContext
    private let hub = EventHub()
    private let collected = EventLog()
    private let emittedLog = EmitLog()

    /// The clock the node paces by: manual, so a live source's `pace` returns at once with the
    /// clock moved to the frame's instant (no test sleeps); advance it to simulate waiting.
    public let clock: ManualNodeClock

    /// Creates the node and applies `parameters` (config text, parsed and range-checked).
    public init(_ type: N.Type = N.self, parameters: [String: String] = [:], connectedOutputs: Set<String>? = nil,
                clock: ManualNodeClock = ManualNodeClock()) throws {
        self.clock = clock
        node = N()
        slots = NodeSlots(of: node)
        for (name, text) in parameters {
            guard let slot = slots.parameters.first(where: { $0.name == name }) else {
                throw ControlError("node kind '\(N.kind)' has no parameter '\(name)'")
            }
            do {
                slot.assign(try slot.parse(.text(text)))
            } catch let e as ValueError {
                throw ControlError("\(name): \(e.message)")
            }
        }
        let log = collected
        hub.subscribe { log.append($0) }
        let outputs = slots.outputs
        let emitted = emittedLog
        context = NodeContext(nodeName: N.kind, logger: Logger(label: "harness.\(N.kind)"), pool: ImagePool(),
                              connectedOutputs: connectedOutputs ?? Set(slots.outputs.map(\.name)),
                              stopFlag: StopFlag(), events: hub, graph: GraphControl(nodes: [], events: hub),
                              clock: clock) { t in
            var out: [String: any Sendable] = [:]
            for slot in outputs { if let v = slot.take() { out[slot.name] = v } }
            emitted.append((t, out))
        }
        try node.validate()
    }

    /// Calls `start`.
    public mutating func start() throws { try node.start(&context) }

    /// Sets the inputs of one instant, calls `process` once, and returns the outputs it assigned.
    public mutating func process(_ inputs: [String: any Sendable] = [:], at time: Timestamp = .zero) throws
        -> [String: any Sendable]
    {
        for slot in slots.inputs {
            if let v = inputs[slot.name] {
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
        return out
    }

    /// The timestamp of the last instant (what a source set).
    public var timestamp: Timestamp { context.timestamp }

    /// Whether a source has called `endOfStream()`.
    public var hasEnded: Bool { context.ended }

    /// Calls `finish`.
    public mutating func finish() throws { try node.finish(&context) }

    /// Sends a node command, checked against the kind's declaration as the graph checks it.
    public mutating func command(_ command: NodeCommand) throws -> String {
        try node.handle(try NodeDescription(N.self).check(command), &context)
    }

    /// Sets a parameter by config name from text, as the control channel does.
    public mutating func set(_ name: String, _ text: String) throws {
        guard let slot = slots.parameters.first(where: { $0.name == name }) else {
            throw ControlError("no parameter '\(name)'")
        }
        slot.assign(try slot.parse(.text(text)))
    }

    /// Packets the node sent with ``NodeContext/emit(at:)`` since the last call, oldest first;
    /// the log is cleared.
    public mutating func takeEmitted() -> [(timestamp: Timestamp, outputs: [String: any Sendable])] {
        emittedLog.take()
    }

    /// Events the node posted.
    public var events: [GraphEvent] { collected.events }

    /// The node itself, for inspection.
    public var instance: N { node }
}

final class EmitLog: @unchecked Sendable {
    private var list: [(timestamp: Timestamp, outputs: [String: any Sendable])] = []
    func append(_ e: (Timestamp, [String: any Sendable])) { list.append(e) }
    func take() -> [(timestamp: Timestamp, outputs: [String: any Sendable])] {
        defer { list.removeAll() }
        return list
    }
}

final class EventLog: @unchecked Sendable {
    private var list: [GraphEvent] = []
    func append(_ e: GraphEvent) { list.append(e) }
    var events: [GraphEvent] { list }
}

extension Dictionary where Key == String, Value == any Sendable {
    /// The packet an output sent, by the port's handle rather than its name:
    /// `try h.process(["video": frame])[h.instance.$out] as? Image`.
    public subscript(_ port: Port) -> (any Sendable)? { self[port.name] }
}
