// ConfigError: a problem in a graph config, with where it is and what to do.

/// One problem found while loading or validating a graph, with its position and key.
public struct ConfigError: Error, Sendable, CustomStringConvertible, Comparable {
    /// Where the problem is.
    public var location: SourceLocation
    /// The dotted key path, for example `nodes.movie.fps`.
    public var key: String
    /// What is wrong.
    public var message: String
    /// What to do about it, if there is something to say.
    public var hint: String?

    /// Creates an error.
    public init(_ location: SourceLocation, key: String, _ message: String, hint: String? = nil) {
        self.location = location
        self.key = key
        self.message = message
        self.hint = hint
    }

    /// `file:line:column: error: key: message (hint)`.
    public var description: String {
        var s = "\(location): error: \(key.isEmpty ? "" : key + ": ")\(message)"
        if let hint { s += " (\(hint))" }
        return s
    }

    public static func < (a: ConfigError, b: ConfigError) -> Bool { a.location < b.location }
    public static func == (a: ConfigError, b: ConfigError) -> Bool { a.description == b.description }
}

/// All the problems found in one graph config; thrown so that a user sees every error at once.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    /// The errors, in file order.
    public var errors: [ConfigError]
    /// Creates the list, sorted by position.
    public init(_ errors: [ConfigError]) { self.errors = errors.sorted() }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// A problem a node finds with its own configuration, naming the parameter it concerns.
/// The validator turns it into a ``ConfigError`` at that parameter's position.
public struct ParameterError: Error, Sendable {
    /// Another node whose parameter this is (a producer that does not fit the node it feeds,
    /// ``Node/validate(upstream:)``); `nil` for the node that throws.
    public var node: String?
    /// The parameter's config name (kebab-case), or `nil` for the node as a whole.
    public var parameter: String?
    public var message: String
    public var hint: String?

    /// Creates an error about `parameter` (of `node`, another node, when given).
    public init(_ parameter: String?, _ message: String, hint: String? = nil, node: String? = nil) {
        self.node = node
        self.parameter = parameter
        self.message = message
        self.hint = hint
    }
}

/// Suggests the closest of `candidates` to a mistyped `word`, if one is close enough.
public func closestMatch(to word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...max(b.count, 1) where j <= b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1,
                                 previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
    let w = Array(word.lowercased())
    let scored = candidates.map { ($0, distance(w, Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, w.count / 3) ? best.0 : nil
}
