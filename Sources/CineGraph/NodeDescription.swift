// NodeDescription: everything a node kind declares, read once from a default instance.
import CineMedia

/// An input or output port of a node kind.
public struct PortDescription: Sendable, Hashable {
    /// The port name (kebab-case).
    public var name: String
    /// The Swift type name of its packets, for example `Image`.
    public var typeName: String
    /// Identity of the packet type; ports connect only when these are equal.
    public var typeID: ObjectIdentifier
    public var doc: String
    /// For inputs: whether it may be left unconnected.
    public var isOptional: Bool
    /// For image inputs, the formats taken; for image outputs, the formats given (`nil`: any or
    /// undeclared).
    public var formats: [PixelFormat]? = nil
    /// For image outputs: the input whose format it keeps.
    public var sameFormatAs: String? = nil

    /// The type with its declared formats, as the reference shows it: `Image (i420, gray8)`.
    public var typeText: String {
        if let formats { return "\(typeName) (\(formats.map(\.rawValue).joined(separator: ", ")))" }
        if let sameFormatAs { return "\(typeName) (as `\(sameFormatAs)`)" }
        return typeName
    }
}

/// A parameter of a node kind.
public struct ParameterDescription: Sendable, Hashable {
    public var name: String
    public var typeName: String
    public var defaultText: String
    public var rangeText: String?
    public var choices: [String]?
    public var doc: String
}

/// The full declaration of a node kind: what `cinegraph nodes` prints and validation uses.
public struct NodeDescription: Sendable {
    public var kind: String
    /// The Swift module that declares the kind (`CineNodes`, `CineViewfinder`, a plugin's).
    public var module: String
    public var summary: String
    public var details: String
    public var inputs: [PortDescription]
    public var outputs: [PortDescription]
    public var parameters: [ParameterDescription]
    public var commands: [CommandDescription]
    /// The kind's declared priority (`nil`: inherited from its consumers).
    public var priority: NodePriority?
    /// The knobs the load controller may turn down (``Node/adaptations``).
    public var adaptations: [NodeAdaptation]
    /// Whether a live take may carry the node's last outputs forward (``Node/carriesForward``).
    public var carriesForward: Bool
    /// Where it gives way under load among the take's carrying nodes (``Node/carryOrder``).
    public var carryOrder: CarryOrder
    let make: @Sendable () -> any Node

    /// Reads the declaration of `type` from a default instance; `make` creates the instances
    /// that run (by default `N()`).
    public init<N: Node>(_ type: N.Type, make: (@Sendable () -> any Node)? = nil) {
        let slots = NodeSlots(of: N())
        kind = N.kind
        module = String(String(reflecting: N.self).prefix { $0 != "." })
        summary = N.summary
        details = N.details
        commands = N.commands
        priority = N.priority
        adaptations = N.adaptations
        carriesForward = N.carriesForward
        carryOrder = N.carryOrder
        inputs = slots.inputs.map {
            PortDescription(name: $0.name, typeName: typeName($0.valueType), typeID: ObjectIdentifier($0.valueType),
                            doc: $0.doc, isOptional: $0.optional, formats: $0.formats)
        }
        outputs = slots.outputs.map { slot in
            var port = PortDescription(name: slot.name, typeName: typeName(slot.valueType),
                                       typeID: ObjectIdentifier(slot.valueType), doc: slot.doc, isOptional: false)
            switch slot.formats {
            case .oneOf(let f)?: port.formats = f
            case .sameAs(let input)?: port.sameFormatAs = input
            case nil: break
            }
            return port
        }
        parameters = slots.parameters.map {
            ParameterDescription(name: $0.name, typeName: $0.typeName, defaultText: $0.defaultText,
                                 rangeText: $0.rangeText, choices: $0.choices, doc: $0.doc)
        }
        self.make = make ?? { N() }
    }

    /// Whether the kind has no inputs (it produces packets on its own).
    public var isSource: Bool { inputs.isEmpty }
    /// Whether the kind has no outputs (it ends the graph: files, windows, devices, servers).
    public var isSink: Bool { outputs.isEmpty }

    /// A new instance with default parameters.
    public func makeNode() -> any Node { make() }
}

private func typeName(_ t: Any.Type) -> String {
    let full = String(describing: t)
    if full.hasPrefix("Array<"), full.hasSuffix(">") { return "[" + String(full.dropFirst(6).dropLast()) + "]" }
    return full
}
