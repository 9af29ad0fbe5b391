// ConfigValue: a YAML value as written, with the position of every part.

/// A value from a graph config: a scalar (as text), a list or a mapping, with its location.
public indirect enum ConfigValue: Sendable, CustomStringConvertible {
    case scalar(String, SourceLocation)
    case list([ConfigValue], SourceLocation)
    case mapping([(key: String, keyLocation: SourceLocation, value: ConfigValue)], SourceLocation)

    /// Where the value starts.
    public var location: SourceLocation {
        switch self {
        case .scalar(_, let l), .list(_, let l), .mapping(_, let l): return l
        }
    }

    /// The text of a scalar, or `nil`.
    public var text: String? {
        if case .scalar(let s, _) = self { return s }
        return nil
    }

    /// The value as written, in a YAML-like flow form.
    public var description: String {
        switch self {
        case .scalar(let s, _): return s
        case .list(let items, _): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .mapping(let entries, _):
            return "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// A scalar with no position, for values that come from code.
    public static func text(_ s: String) -> ConfigValue {
        .scalar(s, SourceLocation(file: "<code>", line: 0, column: 0))
    }
}
