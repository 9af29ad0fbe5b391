// NodeCommand: the commands a node declares (name, typed arguments, doc) and the commands sent to
// it — checked against the declaration before the node sees them, so that the node, the control
// API, `cinegraph control` and docs/nodes.md speak one vocabulary.

/// A command sent to one node through the control channel, for example `still` or `record start`.
///
/// Before ``Node/handle(_:_:)`` runs, the command is checked against the kind's
/// ``CommandDescription``: unknown commands and arguments, missing ones and values of the wrong
/// type are refused with one message naming them. So the typed accessors (``point(_:)``,
/// ``integer(_:)``, ``number(_:)``, ``flag(_:)``, ``text(_:)``) need no error handling of their own.
public struct NodeCommand: Sendable, Hashable {
    /// The command name.
    public var name: String
    /// Named arguments as text (`point` = `0.4,0.5`, `strong` = `true`).
    public var arguments: [String: String]
    /// Creates a command.
    public init(_ name: String, arguments: [String: String] = [:]) {
        self.name = name
        self.arguments = arguments
    }

    /// A point argument as normalised (x, y), both in 0…1.
    public func point(_ name: String) -> (x: Double, y: Double)? {
        arguments[name].flatMap(CommandArgument.parsePoint)
    }
    /// A box argument as normalised (x, y, width, height), inside 0…1.
    public func box(_ name: String) -> (x: Double, y: Double, width: Double, height: Double)? {
        arguments[name].flatMap(CommandArgument.parseBox)
    }
    /// An integer argument.
    public func integer(_ name: String) -> Int? { arguments[name].flatMap { Int($0) } }
    /// A number argument.
    public func number(_ name: String) -> Double? { arguments[name].flatMap { Double($0) } }
    /// A flag: present and `true`.
    public func flag(_ name: String) -> Bool { arguments[name] == "true" }
    /// A text or choice argument.
    public func text(_ name: String) -> String? { arguments[name] }
}

/// One argument a node command takes, declared once: it checks commands, writes the usage in
/// docs/nodes.md and `cinegraph nodes`, and is the control API's schema (`GET /api/nodes`).
public struct CommandArgument: Sendable, Hashable {
    /// What the argument's value is.
    public enum Value: Sendable, Hashable {
        /// A normalised point `X,Y`, both in 0…1 (origin at the top left).
        case point
        /// A normalised box `X,Y,W,H`: its top-left corner and size, inside 0…1, not empty.
        case box
        /// An integer in the range.
        case integer(ClosedRange<Int>)
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// `true` or `false`.
        case flag
        /// One of the words.
        case choice([String])
    }

    /// The argument's name (`point`, `id`).
    public var name: String
    /// What its value is.
    public var value: Value
    /// Whether a command must give it.
    public var isRequired: Bool
    /// Whether a bare word in the text form (`record start`) is this argument.
    public var isPositional: Bool
    /// What it means.
    public var doc: String

    /// Declares an argument.
    public init(_ name: String, _ value: Value, required: Bool = true, positional: Bool = false, _ doc: String = "") {
        self.name = name
        self.value = value
        self.isRequired = required
        self.isPositional = positional
        self.doc = doc
    }

    /// `point=X,Y`, required.
    public static let point = CommandArgument("point", .point, "normalised point, origin top left")
    /// `strong=true`, optional.
    public static let strong = CommandArgument("strong", .flag, required: false, "strong focus: kept until the next decision")

    /// How the value is written: `X,Y`, `N`, `F`, `true`, `start|stop`.
    public var placeholder: String {
        switch value {
        case .point: return "X,Y"
        case .box: return "X,Y,W,H"
        case .integer: return "N"
        case .number: return "F"
        case .flag: return "true"
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    /// The argument in a usage line: `point=X,Y`, `[strong=true]`, `start|stop`.
    public var usage: String {
        let text = isPositional ? placeholder : "\(name)=\(placeholder)"
        return isRequired ? text : "[\(text)]"
    }

    /// The JSON type name of the control API's schema.
    public var typeName: String {
        switch value {
        case .point: return "point"
        case .box: return "box"
        case .integer: return "integer"
        case .number: return "number"
        case .flag: return "boolean"
        case .choice: return "choice"
        }
    }

    /// Why `text` is not a value of this argument, or `nil` when it is.
    func problem(with text: String) -> String? {
        switch value {
        case .point:
            return Self.parsePoint(text) == nil ? "\(name)=\(text) is not a point X,Y with both in 0...1" : nil
        case .box:
            return Self.parseBox(text) == nil
                ? "\(name)=\(text) is not a box X,Y,W,H inside 0...1 (top-left corner, width and height > 0)" : nil
        case .integer(let range):
            guard let v = Int(text) else { return "\(name)=\(text) is not an integer" }
            return range.contains(v) ? nil : "\(name)=\(v) is out of range \(range.lowerBound)...\(range.upperBound)"
        case .number(let range):
            guard let v = Double(text), v.isFinite else { return "\(name)=\(text) is not a number" }
            return range.contains(v) ? nil : "\(name)=\(text) is out of range \(range.lowerBound)...\(range.upperBound)"
        case .flag:
            return ["true", "false"].contains(text) ? nil : "\(name)=\(text) is not true or false"
        case .choice(let words):
            if words.contains(text) { return nil }
            let near = closestMatch(to: text, in: words).map { "; did you mean '\($0)'?" } ?? ""
            return "\(name)=\(text) is not one of \(words.joined(separator: ", "))\(near)"
        }
    }

    static func parseBox(_ text: String) -> (x: Double, y: Double, width: Double, height: Double)? {
        let v = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
        guard v.count == 4, v.allSatisfy(\.isFinite), v[0] >= 0, v[1] >= 0, v[2] > 0, v[3] > 0,
              v[0] + v[2] <= 1 + 1e-9, v[1] + v[3] <= 1 + 1e-9
        else { return nil }
        return (v[0], v[1], v[2], v[3])
    }

    static func parsePoint(_ text: String) -> (x: Double, y: Double)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]),
            (0...1).contains(x), (0...1).contains(y)
        else { return nil }
        return (x, y)
    }
}

/// Declares a command a node accepts: its arguments check every command sent to it and give
/// its usage in docs/nodes.md, `cinegraph nodes` and the control API's schema.
public struct CommandDescription: Sendable, Hashable {
    /// The command's name.
    public var name: String
    /// Its arguments, in usage order.
    public var arguments: [CommandArgument]
    /// What it does.
    public var doc: String

    /// Declares a command and its arguments.
    public init(_ name: String, _ arguments: [CommandArgument], _ doc: String) {
        self.name = name
        self.arguments = arguments
        self.doc = doc
    }

    /// Declares a command that takes no arguments.
    public init(_ name: String, _ doc: String) { self.init(name, [], doc) }

    /// The arguments as a usage line: `point=X,Y [strong=true]`.
    public var usage: String { arguments.map(\.usage).joined(separator: " ") }

    /// `command` with a bare word given the positional argument's name, checked against this
    /// declaration; throws ``NodeCommandError`` naming every problem.
    func checked(_ command: NodeCommand) throws -> NodeCommand {
        // The text form's bare word (`record start`) arrives as `value`: it is the positional argument.
        var given = command.arguments
        if let positional = arguments.first(where: \.isPositional), positional.name != "value",
            given[positional.name] == nil, let word = given.removeValue(forKey: "value")
        {
            given[positional.name] = word
        }
        var problems: [String] = []
        for key in given.keys.sorted() where !arguments.contains(where: { $0.name == key }) {
            let near = closestMatch(to: key, in: arguments.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
            problems.append(arguments.isEmpty ? "takes no arguments, got '\(key)'" : "has no argument '\(key)'\(near)")
        }
        for a in arguments {
            if let text = given[a.name] {
                if let p = a.problem(with: text) { problems.append(p) }
            } else if a.isRequired {
                problems.append("needs \(a.usage)")
            }
        }
        guard problems.isEmpty else {
            throw NodeCommandError("\(name): " + problems.joined(separator: "; ") + (usage.isEmpty ? "" : " (usage: \(name) \(usage))"))
        }
        return NodeCommand(name, arguments: given)
    }
}

extension NodeDescription {
    /// `command` checked against this kind's declared commands (see ``NodeCommand``).
    public func check(_ command: NodeCommand) throws -> NodeCommand {
        guard let declared = commands.first(where: { $0.name == command.name }) else {
            let names = commands.map(\.name)
            let near = closestMatch(to: command.name, in: names).map { "; did you mean '\($0)'?" } ?? ""
            throw NodeCommandError(
                "\(kind) has no command '\(command.name)'"
                    + (names.isEmpty ? "; it takes no commands" : near.isEmpty ? "; its commands: \(names.joined(separator: ", "))" : near))
        }
        return try declared.checked(command)
    }
}
