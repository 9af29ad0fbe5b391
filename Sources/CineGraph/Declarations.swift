// Declarations: the property wrappers a node uses to declare its ports and parameters.
// The declaration is the single source for validation, `cinegraph nodes` and docs/nodes.md.
import CineMedia

/// A port of a node, as its code refers to it: `$video` gives the `video` port's handle, typed
/// by the packets it carries (`Port<Image>`). The name is the config key (the property's, or the
/// `name:` of its declaration).
public struct Port<Value: Sendable>: CustomStringConvertible, PortNaming {
    private let slot: PortName
    init(_ slot: PortName) { self.slot = slot }
    /// The port's name in configs, docs and errors.
    public var name: String { slot.name }
    public var description: String { slot.name }
}

/// An input port. Reading it inside `process` gives the packet of the current instant.
///
/// ```swift
/// @Input("Frames to darken") var video: Image
/// @Input(name: "detections", "Faces to follow") var faces: Detections   // a port named apart from its property
/// ```
@propertyWrapper
public struct Input<Value: Sendable>: InputDeclaring {
    let slot: InputSlot<Value>
    /// Declares a required input with a one-line description; `name` overrides the name the
    /// property gives (`maxDisparity` → `max-disparity`).
    public init(name: String? = nil, _ doc: String = "") { slot = InputSlot(doc: doc, optional: false, explicitName: name) }
    /// Declares a required image input that takes only `formats`: checked when the graph is
    /// built against what the producer declares (or, for a producer that declares nothing, on
    /// each packet before ``Node/process(_:)``), so `process` needs no check of its own.
    public init(name: String? = nil, formats: [PixelFormat], _ doc: String = "") where Value == Image {
        slot = InputSlot(doc: doc, optional: false, explicitName: name, formats: formats)
    }
    /// The port's handle (`$video`).
    public var projectedValue: Port<Value> { Port(slot) }
    /// The packet of the current instant.
    public var wrappedValue: Value {
        guard let v = slot.value else { preconditionFailure("input '\(slot.name)' read outside process()") }
        return v
    }
    var anyInputSlot: AnyInputSlot { slot }
}

/// An input port that may be left unconnected; `nil` when it is.
@propertyWrapper
public struct OptionalInput<Value: Sendable>: InputDeclaring {
    let slot: InputSlot<Value>
    /// Declares an optional input; `name` overrides the name the property gives.
    public init(name: String? = nil, _ doc: String = "") { slot = InputSlot(doc: doc, optional: true, explicitName: name) }
    /// Declares an optional image input that takes only `formats` (checked as for ``Input``).
    public init(name: String? = nil, formats: [PixelFormat], _ doc: String = "") where Value == Image {
        slot = InputSlot(doc: doc, optional: true, explicitName: name, formats: formats)
    }
    /// The port's handle (`$focus`).
    public var projectedValue: Port<Value> { Port(slot) }
    /// The packet of the current instant, or `nil` when the port is not connected.
    public var wrappedValue: Value? { slot.value }
    var anyInputSlot: AnyInputSlot { slot }
}

/// An output port. Assign to it inside `process` to send a packet at the current instant;
/// an output left unassigned sends a "skip" so that joins downstream move on.
@propertyWrapper
public struct Output<Value: Sendable>: OutputDeclaring {
    let slot: OutputSlot<Value>
    /// Declares an output with a one-line description; `name` overrides the name the property
    /// gives (an output may share its name with an input: `detections` in, `detections` out).
    public init(name: String? = nil, _ doc: String = "") { slot = OutputSlot(doc: doc, explicitName: name) }
    /// Declares an image output that gives one of `formats`; consumers' declared formats are
    /// checked against it when the graph is built.
    public init(name: String? = nil, formats: [PixelFormat], _ doc: String = "") where Value == Image {
        slot = OutputSlot(doc: doc, explicitName: name, formats: .oneOf(formats))
    }
    /// Declares an image output in the format of the image on input `input` (a filter that keeps
    /// its input's format, like `bokeh` or `resize`).
    public init(name: String? = nil, formatOf input: String, _ doc: String = "") where Value == Image {
        slot = OutputSlot(doc: doc, explicitName: name, formats: .sameAs(input))
    }
    /// The port's handle, for ``NodeContext/isConnected(_:)-(Port)``: `ctx.isConnected($video)`.
    public var projectedValue: Port<Value> { Port(slot) }
    /// The packet for the current instant.
    public var wrappedValue: Value {
        get {
            guard let v = slot.value else { preconditionFailure("output '\(slot.name)' read before it was set") }
            return v
        }
        nonmutating set { slot.value = newValue }
    }
    var anyOutputSlot: AnyOutputSlot { slot }
}

/// A parameter, set from the graph config (`key: value`), `--set`, or the control channel.
///
/// ```swift
/// @Parameter(default: 0.4, range: 0...1, "Strength at the corners") var strength: Double
/// ```
@propertyWrapper
public struct Parameter<Value: ParameterValue>: ParameterDeclaring {
    let slot: ParameterSlot<Value>
    /// Declares a parameter with a default and a description.
    public init(default value: Value, _ doc: String) {
        slot = ParameterSlot(defaultValue: value, doc: doc, rangeText: nil, check: nil)
    }
    /// Declares a parameter whose values must lie in `range`.
    public init(default value: Value, range: ClosedRange<Value>, _ doc: String) where Value: Comparable {
        slot = ParameterSlot(
            defaultValue: value, doc: doc, rangeText: "\(range.lowerBound.configText)...\(range.upperBound.configText)",
            check: { v in
                range.contains(v) ? nil
                    : "\(v.configText) is out of range \(range.lowerBound.configText)...\(range.upperBound.configText)"
            })
    }
    /// The current value.
    public var wrappedValue: Value {
        get { slot.value }
        nonmutating set { slot.value = newValue }
    }
    var anyParameterSlot: AnyParameterSlot { slot }
}

/// The pixel formats an image output declares.
public enum ImageFormats: Sendable, Hashable {
    /// One of these formats.
    case oneOf([PixelFormat])
    /// The format of the image on the named input.
    case sameAs(String)
}

/// What every port handle has, whatever it carries: its name.
protocol PortNaming { var name: String { get } }

// MARK: - Slots: the storage behind the wrappers, found by reflection.

protocol InputDeclaring { var anyInputSlot: AnyInputSlot { get } }
protocol OutputDeclaring { var anyOutputSlot: AnyOutputSlot { get } }
protocol ParameterDeclaring { var anyParameterSlot: AnyParameterSlot { get } }

/// A slot that knows its port's name once the node is reflected.
class PortName {
    /// Set once, when the node's slots are found (before the node runs).
    var name = ""
    /// The `name:` of the declaration, if any.
    let explicitName: String?
    init(explicitName: String?) { self.explicitName = explicitName }
}

class AnyInputSlot: PortName {
    let doc: String
    let optional: Bool
    /// The image formats it takes (`nil`: any, or not an image).
    let formats: [PixelFormat]?
    init(doc: String, optional: Bool, explicitName: String?, formats: [PixelFormat]? = nil) {
        self.doc = doc
        self.optional = optional
        self.formats = formats
        super.init(explicitName: explicitName)
    }
    var valueType: Any.Type { fatalError("abstract") }
    func set(_ value: (any Sendable)?) { fatalError("abstract") }
}

final class InputSlot<Value: Sendable>: AnyInputSlot {
    var value: Value?
    override var valueType: Any.Type { Value.self }
    override func set(_ v: (any Sendable)?) { value = v.map { $0 as! Value } }
}

class AnyOutputSlot: PortName {
    let doc: String
    /// The image formats it gives (`nil`: undeclared, or not an image).
    let formats: ImageFormats?
    init(doc: String, explicitName: String?, formats: ImageFormats? = nil) {
        self.doc = doc
        self.formats = formats
        super.init(explicitName: explicitName)
    }
    var valueType: Any.Type { fatalError("abstract") }
    func take() -> (any Sendable)? { fatalError("abstract") }
    var hasValue: Bool { fatalError("abstract") }
}

final class OutputSlot<Value: Sendable>: AnyOutputSlot {
    var value: Value?
    override var valueType: Any.Type { Value.self }
    override var hasValue: Bool { value != nil }
    override func take() -> (any Sendable)? {
        defer { value = nil }
        return value
    }
}

class AnyParameterSlot {
    var name = ""
    let doc: String
    let rangeText: String?
    init(doc: String, rangeText: String?) {
        self.doc = doc
        self.rangeText = rangeText
    }
    var typeName: String { fatalError("abstract") }
    var choices: [String]? { nil }
    var defaultText: String { fatalError("abstract") }
    var currentText: String { fatalError("abstract") }
    /// Parses and range-checks a config value without storing it.
    func parse(_ config: ConfigValue) throws -> any Sendable { fatalError("abstract") }
    func assign(_ parsed: any Sendable) { fatalError("abstract") }
}

final class ParameterSlot<Value: ParameterValue>: AnyParameterSlot {
    var value: Value
    let defaultValue: Value
    let check: (@Sendable (Value) -> String?)?
    init(defaultValue: Value, doc: String, rangeText: String?, check: (@Sendable (Value) -> String?)?) {
        self.value = defaultValue
        self.defaultValue = defaultValue
        self.check = check
        super.init(doc: doc, rangeText: rangeText)
    }
    override var typeName: String { Value.typeName }
    override var choices: [String]? { Value.choices }
    override var defaultText: String { defaultValue.configText }
    override var currentText: String { value.configText }
    override func parse(_ config: ConfigValue) throws -> any Sendable {
        let v = try Value(config: config)
        if let problem = check?(v) { throw ValueError(problem) }
        return v
    }
    override func assign(_ parsed: any Sendable) { value = parsed as! Value }
}

/// Turns a Swift property name into a config key: `maxDisparity` → `max-disparity`.
func configName(ofProperty label: String) -> String {
    var name = label.hasPrefix("_") ? String(label.dropFirst()) : label
    var out = ""
    for ch in name {
        if ch.isUppercase {
            if !out.isEmpty { out.append("-") }
            out.append(Character(ch.lowercased()))
        } else {
            out.append(ch)
        }
    }
    name = out
    return name
}

/// The slots of one node instance, found by reflection and named after their properties.
struct NodeSlots {
    var inputs: [AnyInputSlot] = []
    var outputs: [AnyOutputSlot] = []
    var parameters: [AnyParameterSlot] = []

    init(of node: Any) {
        var mirror: Mirror? = Mirror(reflecting: node)
        while let m = mirror {
            for child in m.children {
                guard let label = child.label else { continue }
                let name = configName(ofProperty: label)
                if let d = child.value as? any InputDeclaring {
                    d.anyInputSlot.name = d.anyInputSlot.explicitName ?? name
                    inputs.append(d.anyInputSlot)
                } else if let d = child.value as? any OutputDeclaring {
                    d.anyOutputSlot.name = d.anyOutputSlot.explicitName ?? name
                    outputs.append(d.anyOutputSlot)
                } else if let d = child.value as? any ParameterDeclaring {
                    d.anyParameterSlot.name = name
                    parameters.append(d.anyParameterSlot)
                }
            }
            mirror = m.superclassMirror
        }
        for (kind, names) in [("input", inputs.map(\.name)), ("output", outputs.map(\.name)), ("parameter", parameters.map(\.name))] {
            let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            precondition(repeated.isEmpty, "\(type(of: node)) declares two \(kind)s named \(repeated.joined(separator: ", "))")
        }
        for output in outputs {
            if case .sameAs(let input)? = output.formats {
                precondition(inputs.contains { $0.name == input && $0.valueType == Image.self },
                             "\(type(of: node)).\(output.name) takes its format from '\(input)', which is not an image input")
            }
        }
    }
}

// MARK: - The one parameter path

/// Why a parameter could not be read or set — by config, `--set`, the control channel, the HTTP
/// API or the harness alike. Each front end formats it in its own words (a config error at the
/// key's position, an HTTP status); tests compare cases.
public enum NodeParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node kind declares no parameter of that name; `suggestion` is the closest it does.
    case unknown(kind: String, name: String, suggestion: String?)
    /// The value is not one of the parameter's type, or out of its range (`allowed`).
    case invalid(name: String, reason: String, allowed: String?)

    /// The parameter's name.
    public var name: String {
        switch self {
        case .unknown(_, let name, _), .invalid(let name, _, _): return name
        }
    }

    /// What to try instead: the closest name, or the allowed values.
    public var hint: String? {
        switch self {
        case .unknown(_, _, let suggestion): return suggestion.map { "did you mean '\($0)'?" }
        case .invalid(_, let reason, let allowed): return allowed.flatMap { reason.contains($0) ? nil : "allowed: \($0)" }
        }
    }

    /// The problem without the hint.
    public var reason: String {
        switch self {
        case .unknown(let kind, let name, _): return "node kind '\(kind)' has no parameter '\(name)'"
        case .invalid(_, let reason, _): return reason
        }
    }

    public var description: String {
        switch self {
        case .unknown: return reason + (hint.map { "; \($0)" } ?? "")
        case .invalid(let name, _, _): return "\(name): \(reason)" + (hint.map { " (\($0))" } ?? "")
        }
    }
}

extension NodeSlots {
    /// The parameter called `name`, or ``NodeParameterError/unknown(kind:name:suggestion:)``.
    func parameter(_ name: String, kind: String) throws(NodeParameterError) -> AnyParameterSlot {
        guard let slot = parameters.first(where: { $0.name == name }) else {
            throw .unknown(kind: kind, name: name, suggestion: closestMatch(to: name, in: parameters.map(\.name)))
        }
        return slot
    }

    /// Parses and range-checks `value` for the parameter `name` without storing it.
    func parse(_ name: String, _ value: ConfigValue, kind: String) throws(NodeParameterError) -> any Sendable {
        let slot = try parameter(name, kind: kind)
        do {
            return try slot.parse(value)
        } catch let e as ValueError {
            throw .invalid(name: name, reason: e.message, allowed: slot.rangeText)
        } catch {
            throw .invalid(name: name, reason: "\(error)", allowed: slot.rangeText)
        }
    }

    /// Sets the parameter `name` from `value`; returns its value as config text.
    @discardableResult
    func set(_ name: String, _ value: ConfigValue, kind: String) throws(NodeParameterError) -> String {
        let parsed = try parse(name, value, kind: kind)
        let slot = try parameter(name, kind: kind)
        slot.assign(parsed)
        return slot.currentText
    }

    /// The parameter `name`'s current value as config text.
    func get(_ name: String, kind: String) throws(NodeParameterError) -> String {
        try parameter(name, kind: kind).currentText
    }
}
