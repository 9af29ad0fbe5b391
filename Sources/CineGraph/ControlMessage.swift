// ControlMessage: the typed control channel shared by the CLI, the viewfinder and embedders.

/// A request to a running node.
public enum ControlMessage: Sendable, Hashable {
    /// Sets a parameter (by its config name) from text, parsed and range-checked like the config.
    case set(parameter: String, value: String)
    /// Reads a parameter's current value.
    case get(parameter: String)
    /// A node command, such as `still` or `record` with `start`.
    case command(NodeCommand)

    /// Parses the text form used by the CLI: `node.param=value`, `node.param?`, or `node command [key=value ...]`.
    /// Returns the node name and the message.
    public static func parse(_ line: String) -> (node: String, message: ControlMessage)? {
        let trimmed = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let first = trimmed.first else { return nil }
        if trimmed.count == 1, let eq = first.firstIndex(of: "="), let dot = first[..<eq].firstIndex(of: ".") {
            return (String(first[..<dot]), .set(parameter: String(first[first.index(after: dot)..<eq]),
                                               value: String(first[first.index(after: eq)...])))
        }
        if trimmed.count == 1, first.hasSuffix("?"), let dot = first.firstIndex(of: ".") {
            return (String(first[..<dot]), .get(parameter: String(first[first.index(after: dot)...].dropLast())))
        }
        guard trimmed.count >= 2 else { return nil }
        var args: [String: String] = [:]
        var positional = 0
        for word in trimmed.dropFirst(2) {
            if let eq = word.firstIndex(of: "=") {
                args[String(word[..<eq])] = String(word[word.index(after: eq)...])
            } else {
                args[positional == 0 ? "value" : "value\(positional)"] = word
                positional += 1
            }
        }
        return (first, .command(NodeCommand(trimmed[1], arguments: args)))
    }
}

/// A control request that could not be delivered or carried out.
public struct ControlError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
