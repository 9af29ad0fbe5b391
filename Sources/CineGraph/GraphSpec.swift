// GraphSpec: a graph config as written (YAML parsed with positions), before validation.
import Foundation
internal import Yams

/// One node entry of a config, as written.
public struct NodeSpec: Sendable {
    /// The node's name (its key under `nodes:`).
    public var name: String
    /// Where the name is written.
    public var location: SourceLocation
    /// The `kind:` value, if written.
    public var kind: String?
    /// Where the `kind:` value is written.
    public var kindLocation: SourceLocation
    /// Every other key: input connections and parameters, in file order.
    public var entries: [(key: String, keyLocation: SourceLocation, value: ConfigValue)]
}

/// A graph config as written: name, plugins and node entries with their positions.
public struct GraphSpec: Sendable {
    /// The file it came from (as given), used in every error.
    public var file: String
    /// The `graph:` name.
    public var name: String
    /// Plugin library paths as written (relative to the config's folder) with their positions.
    public var plugins: [(path: String, location: SourceLocation)]
    /// The node entries, in file order.
    public var nodes: [NodeSpec]
    /// Problems found while reading that do not stop validation (reported with the builder's).
    public var problems: [ConfigError] = []

    /// Reads and parses a config file.
    public static func load(contentsOf path: String) throws -> GraphSpec {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ConfigErrors([ConfigError(SourceLocation(file: path, line: 0, column: 0), key: "",
                                            exists ? "cannot read the file" : "no such file")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigErrors([ConfigError(SourceLocation(file: path, line: 0, column: 0), key: "",
                                            "the file is not UTF-8 text")])
        }
        return try parse(text, file: path)
    }

    /// Parses config text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws -> GraphSpec {
        let root: ConfigValue
        try checkNesting(text, file: file)
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw ConfigErrors([ConfigError(SourceLocation(file: file, line: 1, column: 1), key: "",
                                                "the config is empty", hint: "a graph needs a 'nodes:' mapping")])
            }
            root = try convert(node, file: file)
        } catch let e as ConfigErrors {
            throw e
        } catch let e as YamlError {
            throw ConfigErrors([yamlError(e, file: file, text: text)])
        }
        return try interpret(root, file: file)
    }

    private static func yamlError(_ e: YamlError, file: String, text: String) -> ConfigError {
        func at(_ line: Int, _ column: Int) -> SourceLocation {
            SourceLocation(file: file, line: max(1, line), column: max(1, column))
        }
        switch e {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _):
            return ConfigError(at(mark.line, mark.column), key: "", "YAML syntax: \(problem)")
        case .composer(_, let problem, let mark, _):
            return ConfigError(at(mark.line, mark.column), key: "", "YAML: \(problem)",
                               hint: problem.contains("alias") ? "define the anchor (&name) before using *name" : nil)
        case .duplicatedKeysInMapping(let duplicates, let context):
            // The parser marks the mapping; point at the second occurrence of the key instead.
            let key = duplicates.first ?? ""
            var seen = 0
            let lines = text.components(separatedBy: "\n")
            for (i, line) in lines.enumerated() where i + 1 >= context.mark.line {
                var search = line[...]
                while let r = search.range(of: key + ":") {
                    let before = line[..<r.lowerBound].last
                    if before == nil || before == " " || before == "{" || before == "," || before == "\t" {
                        seen += 1
                        if seen == 2 {
                            return ConfigError(at(i + 1, line.distance(from: line.startIndex, to: r.lowerBound) + 1),
                                               key: key, "duplicate key", hint: "each key may appear once per node")
                        }
                    }
                    search = line[r.upperBound...]
                }
            }
            return ConfigError(at(context.mark.line, context.mark.column), key: key, "duplicate key",
                               hint: "each key may appear once per node")
        case .reader(let problem, let offset, _, _):
            let prefix = text.utf8.prefix(max(0, offset ?? 0))
            let line = prefix.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            let column = prefix.count - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { prefix.distance(from: prefix.startIndex, to: $0) + 1 } ?? 0) + 1
            return ConfigError(at(line, column), key: "", "YAML: \(problem)")
        default:
            return ConfigError(at(1, 1), key: "", "YAML: \(e)")
        }
    }

    /// Limits that keep a hostile config (an alias bomb, thousands of nesting levels) from
    /// exhausting memory or the stack: far beyond any real graph.
    static let maximumValues = 100_000
    static let maximumDepth = 64

    /// Rejects nesting the YAML library would recurse through too deeply, before it does.
    private static func checkNesting(_ text: String, file: String) throws {
        var depth = 0, line = 1, column = 0, inQuote: UInt8? = nil, inComment = false, lineStart = true, indent = 0
        for byte in text.utf8 {
            column += 1
            if byte == UInt8(ascii: "\n") {
                line += 1; column = 0; inComment = false; lineStart = true; indent = 0
                continue
            }
            if lineStart {
                if byte == UInt8(ascii: " ") {
                    indent += 1
                    if indent > 4 * maximumDepth {
                        throw ConfigErrors([ConfigError(SourceLocation(file: file, line: line, column: column), key: "",
                                                        "indented more than \(4 * maximumDepth) columns",
                                                        hint: "a graph config nests a few levels")])
                    }
                    continue
                }
                lineStart = false
            }
            if inComment { continue }
            if let q = inQuote {
                if byte == q { inQuote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "#"): inComment = true
            case UInt8(ascii: "\""), UInt8(ascii: "'"): inQuote = byte
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumDepth {
                    throw ConfigErrors([ConfigError(SourceLocation(file: file, line: line, column: column), key: "",
                                                    "nested more than \(maximumDepth) levels deep",
                                                    hint: "a graph config nests a few levels")])
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
    }

    private static func convert(_ node: Yams.Node, file: String) throws -> ConfigValue {
        var budget = maximumValues
        return try convert(node, file: file, budget: &budget, depth: 0)
    }

    private static func convert(_ node: Yams.Node, file: String, budget: inout Int, depth: Int) throws -> ConfigValue {
        let loc = SourceLocation(file: file, line: node.mark?.line ?? 0, column: node.mark?.column ?? 0)
        budget -= 1
        if budget < 0 || depth > maximumDepth {
            let why = budget < 0 ? "the config expands to more than \(maximumValues) values"
                : "the config nests more than \(maximumDepth) levels deep"
            throw ConfigErrors([ConfigError(SourceLocation(file: file, line: max(1, loc.line), column: max(1, loc.column)),
                                            key: "", why, hint: "are anchors (&) and aliases (*) multiplying it?")])
        }
        switch node {
        case .scalar(let s):
            return .scalar(s.string, loc)
        case .sequence(let seq):
            var items: [ConfigValue] = []
            for item in seq { items.append(try convert(item, file: file, budget: &budget, depth: depth + 1)) }
            return .list(items, loc)
        case .mapping(let map):
            var entries: [(key: String, keyLocation: SourceLocation, value: ConfigValue)] = []
            var errors: [ConfigError] = []
            for (k, v) in map {
                let kl = SourceLocation(file: file, line: k.mark?.line ?? 0, column: k.mark?.column ?? 0)
                guard case .scalar(let ks) = k else {
                    errors.append(ConfigError(kl, key: "", "a key must be a plain word"))
                    continue
                }
                if entries.contains(where: { $0.key == ks.string }) {
                    errors.append(ConfigError(kl, key: ks.string, "duplicate key"))
                    continue
                }
                entries.append((ks.string, kl, try convert(v, file: file, budget: &budget, depth: depth + 1)))
            }
            if !errors.isEmpty { throw ConfigErrors(errors) }
            return .mapping(entries, loc)
        case .alias:
            throw ConfigErrors([ConfigError(loc, key: "", "YAML aliases are not supported in graph configs")])
        }
    }

    private static func interpret(_ root: ConfigValue, file: String) throws -> GraphSpec {
        guard case .mapping(let top, _) = root else {
            throw ConfigErrors([ConfigError(root.location, key: "", "a graph config is a mapping with 'nodes:'")])
        }
        var errors: [ConfigError] = []
        var spec = GraphSpec(file: file, name: URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent,
                             plugins: [], nodes: [])
        var sawNodes = false
        let topKeys = ["graph", "description", "plugins", "nodes"]
        for entry in top {
            switch entry.key {
            case "graph":
                if let t = entry.value.text { spec.name = t } else {
                    errors.append(ConfigError(entry.value.location, key: "graph", "the graph name must be text"))
                }
            case "description":
                break
            case "plugins":
                switch entry.value {
                case .list(let items, _):
                    for item in items {
                        if let t = item.text { spec.plugins.append((t, item.location)) } else {
                            errors.append(ConfigError(item.location, key: "plugins", "a plugin is a library path"))
                        }
                    }
                case .scalar(let s, let l) where !s.isEmpty: spec.plugins.append((s, l))
                case .scalar: break
                case .mapping:
                    errors.append(ConfigError(entry.value.location, key: "plugins", "expected a list of library paths"))
                }
            case "nodes":
                sawNodes = true
                guard case .mapping(let nodes, _) = entry.value else {
                    errors.append(ConfigError(entry.value.location, key: "nodes",
                                              "expected a mapping of node names to node entries"))
                    continue
                }
                for n in nodes { interpretNode(n, into: &spec, errors: &errors) }
            default:
                let near = closestMatch(to: entry.key, in: topKeys)
                errors.append(ConfigError(entry.keyLocation, key: entry.key, "unknown top-level key",
                                          hint: near.map { "did you mean '\($0)'?" } ?? "expected one of \(topKeys.joined(separator: ", "))"))
            }
        }
        if !sawNodes {
            errors.append(ConfigError(root.location, key: "nodes", "the graph has no 'nodes:' mapping"))
        } else if spec.nodes.isEmpty && errors.isEmpty {
            errors.append(ConfigError(root.location, key: "nodes", "the graph has no nodes"))
        }
        if !sawNodes || spec.nodes.isEmpty { throw ConfigErrors(errors) }
        spec.problems = errors
        return spec
    }

    private static func interpretNode(_ n: (key: String, keyLocation: SourceLocation, value: ConfigValue),
                                      into spec: inout GraphSpec, errors: inout [ConfigError]) {
        let key = "nodes.\(n.key)"
        if !isValidNodeName(n.key) {
            errors.append(ConfigError(n.keyLocation, key: key, "'\(n.key)' is not a valid node name",
                                      hint: "use letters, digits, '-' and '_', starting with a letter"))
        }
        guard case .mapping(let entries, _) = n.value else {
            errors.append(ConfigError(n.value.location, key: key, "a node entry is a mapping with 'kind:'",
                                      hint: "for example { kind: synthetic }"))
            return
        }
        var node = NodeSpec(name: n.key, location: n.keyLocation, kind: nil, kindLocation: n.keyLocation, entries: [])
        for e in entries {
            if e.key == "kind" {
                node.kind = e.value.text
                node.kindLocation = e.value.location
                if node.kind == nil { errors.append(ConfigError(e.value.location, key: key + ".kind", "kind must be a name")) }
            } else {
                node.entries.append(e)
            }
        }
        if node.kind == nil && !entries.contains(where: { $0.key == "kind" }) {
            errors.append(ConfigError(n.keyLocation, key: key, "the node has no 'kind:'",
                                      hint: "run 'cinegraph nodes' for the kinds"))
        }
        spec.nodes.append(node)
    }

    static func isValidNodeName(_ s: String) -> Bool {
        guard let first = s.first, first.isLetter else { return false }
        return s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }

    /// Applies `node.key=value` overrides (from `--set`): replaces or adds the entry.
    public mutating func apply(overrides: [String]) throws {
        var errors: [ConfigError] = []
        for o in overrides {
            let loc = SourceLocation(file: "--set \(o)", line: 0, column: 0)
            guard let eq = o.firstIndex(of: "="), let dot = o[..<eq].firstIndex(of: ".") else {
                errors.append(ConfigError(loc, key: "", "expected node.key=value"))
                continue
            }
            let nodeName = String(o[..<dot]), key = String(o[o.index(after: dot)..<eq])
            let valueText = String(o[o.index(after: eq)...])
            guard let i = nodes.firstIndex(where: { $0.name == nodeName }) else {
                let near = closestMatch(to: nodeName, in: nodes.map(\.name))
                errors.append(ConfigError(loc, key: "nodes.\(nodeName)", "no node named '\(nodeName)'",
                                          hint: near.map { "did you mean '\($0)'?" }))
                continue
            }
            let value: ConfigValue
            if valueText.hasPrefix("["), valueText.hasSuffix("]") {
                let items = valueText.dropFirst().dropLast().split(separator: ",")
                    .map { ConfigValue.scalar($0.trimmingCharacters(in: .whitespaces), loc) }
                value = .list(items, loc)
            } else {
                value = .scalar(valueText, loc)
            }
            if key == "kind" {
                nodes[i].kind = valueText
                nodes[i].kindLocation = loc
            } else if let j = nodes[i].entries.firstIndex(where: { $0.key == key }) {
                nodes[i].entries[j] = (key, loc, value)
            } else {
                nodes[i].entries.append((key, loc, value))
            }
        }
        if !errors.isEmpty { throw ConfigErrors(errors) }
    }
}

// MARK: - Graphs built in code

extension GraphSpec {
    /// An empty graph to build in code with ``add(_:kind:inputs:_:)``: the tools' graphs, an
    /// embedder's. Its errors name `<name>` and the node's place (line N = the N-th node added).
    public init(name: String) {
        self.init(file: "<\(name)>", name: name, plugins: [], nodes: [])
    }

    /// Adds node `name` of `kind`: `inputs` connect its input ports (`"image": "camera.left"`),
    /// `parameters` set its parameters as typed values (`"fps": 29.97`, `"path": somePath`,
    /// `"preset": X264Preset.veryfast`, `"types": ["humanFace"]`) — no YAML, no quoting.
    /// Everything is checked when the graph is built, as for a config file.
    public mutating func add(_ name: String, kind: String, inputs: [String: String] = [:],
                             _ parameters: [String: any ParameterValue] = [:]) {
        let at = SourceLocation(file: file, line: nodes.count + 1, column: 1)
        let entries = inputs.sorted { $0.key < $1.key }.map { (key: $0.key, keyLocation: at, value: ConfigValue.scalar($0.value, at)) }
            + parameters.sorted { $0.key < $1.key }.map { (key: $0.key, keyLocation: at, value: $0.value.configValue(at: at)) }
        nodes.append(NodeSpec(name: name, location: at, kind: kind, kindLocation: at, entries: entries))
    }
}
