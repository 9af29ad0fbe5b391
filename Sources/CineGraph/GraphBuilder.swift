// GraphBuilder: validates a GraphSpec against the registry and builds a Graph, collecting
// every error with its position and key before anything starts.

import CineMedia

/// Builds a ``Graph`` from a ``GraphSpec``: unknown kinds and keys (with "did you mean"),
/// wrong types and ranges, missing or mismatched ports, unconnected inputs and cycles are
/// all reported together, each at its file:line:column.
public struct GraphBuilder {
    /// The kinds the graph may use.
    public var registry: NodeRegistry

    /// Whether to run each node's ``Node/preflight()`` (machine checks) as well.
    public var preflight: Bool

    /// Creates a builder over `registry`.
    public init(registry: NodeRegistry, preflight: Bool = false) {
        self.registry = registry
        self.preflight = preflight
    }

    /// Validates `spec`; throws ``ConfigErrors`` listing every problem found. The passes run in
    /// order over one ``Build``; each adds what it finds to the same list of errors.
    public func build(_ spec: GraphSpec) throws -> Graph {
        var b = Build(spec: spec, registry: registry, preflight: preflight)
        b.declareNodes()
        b.connectInputs()
        b.requireInputs()
        b.orderTopologically()
        b.checkImageFormats()
        b.checkParameters()
        b.assignPriorities()
        if !b.errors.isEmpty { throw ConfigErrors(b.errors) }
        return Graph(name: spec.name, file: spec.file, nodes: b.sorted.map { b.built[$0]! })
    }
}

/// The state the builder's passes share: the nodes built so far, the connections to make, the
/// order, and every error found.
private struct Build {
    let spec: GraphSpec
    let registry: NodeRegistry
    let preflight: Bool
    var errors: [ConfigError]
    var built: [String: GraphNode] = [:]
    var references: [(node: String, input: String, ref: String, location: SourceLocation)] = []
    /// Node names in the order the config lists them.
    var order: [String] = []
    /// Node names, every producer before its consumers (nodes on a cycle left out).
    var sorted: [String] = []

    init(spec: GraphSpec, registry: NodeRegistry, preflight: Bool) {
        self.spec = spec
        self.registry = registry
        self.preflight = preflight
        errors = spec.problems
    }

    /// Each node: its kind known, its keys either inputs (connections to make) or parameters
    /// (parsed and range-checked), its priority if written.
    mutating func declareNodes() {
        for n in spec.nodes {
            let key = "nodes.\(n.name)"
            guard let kind = n.kind else { continue }
            guard let d = registry.description(of: kind) else {
                let near = closestMatch(to: kind, in: registry.kinds)
                errors.append(ConfigError(n.kindLocation, key: key + ".kind", "unknown node kind '\(kind)'",
                                          hint: near.map { "did you mean '\($0)'?" } ?? "run 'cinegraph nodes' for the kinds"))
                continue
            }
            let probe = NodeSlots(of: d.makeNode())
            var values: [(name: String, value: any Sendable)] = []
            var declaredPriority: NodePriority?
            for e in n.entries {
                if e.key == "priority" {
                    if let p = e.value.text.flatMap(NodePriority.init(rawValue:)) {
                        declaredPriority = p
                    } else {
                        errors.append(ConfigError(e.value.location, key: "\(key).priority",
                                                  "priority must be one of: take, preview",
                                                  hint: "take: the recording, never dropped while the machine can sustain it; preview: gives way first"))
                    }
                } else if d.inputs.contains(where: { $0.name == e.key }) {
                    guard let text = e.value.text, !text.isEmpty else {
                        errors.append(ConfigError(e.value.location, key: "\(key).\(e.key)",
                                                  "an input is connected with 'node' or 'node.port'"))
                        continue
                    }
                    references.append((n.name, e.key, text, e.value.location))
                } else if probe.parameters.contains(where: { $0.name == e.key }) {
                    do {
                        values.append((e.key, try probe.parse(e.key, e.value, kind: kind)))
                    } catch {
                        errors.append(ConfigError(e.value.location, key: "\(key).\(e.key)", error.reason, hint: error.hint))
                    }
                } else {
                    let names = d.inputs.map(\.name) + d.parameters.map(\.name)
                    let near = closestMatch(to: e.key, in: names)
                    errors.append(ConfigError(e.keyLocation, key: "\(key).\(e.key)",
                                              "node kind '\(kind)' has no input or parameter '\(e.key)'",
                                              hint: near.map { "did you mean '\($0)'?" }
                                                ?? "run 'cinegraph nodes \(kind)' to see them"))
                }
            }
            built[n.name] = GraphNode(name: n.name, description: d, parameterValues: values, parameterTexts: [:],
                                      inputs: [:], isLive: false)
            built[n.name]!.declaredPriority = declaredPriority
            order.append(n.name)
        }
    }

    /// Connections: the node exists, the port exists (or is the only one), types agree.
    mutating func connectInputs() {
        for r in references {
            let key = "nodes.\(r.node).\(r.input)"
            let parts = r.ref.split(separator: ".", maxSplits: 1).map(String.init)
            let sourceName = parts[0]
            guard let source = built[sourceName] else {
                if spec.nodes.contains(where: { $0.name == sourceName }) { continue }  // reported already
                let near = closestMatch(to: sourceName, in: spec.nodes.map(\.name))
                errors.append(ConfigError(r.location, key: key, "no node named '\(sourceName)'",
                                          hint: near.map { "did you mean '\($0)'?" }))
                continue
            }
            let outputs = source.description.outputs
            let port: PortDescription
            if parts.count == 2 {
                guard let p = outputs.first(where: { $0.name == parts[1] }) else {
                    let near = closestMatch(to: parts[1], in: outputs.map(\.name))
                    errors.append(ConfigError(r.location, key: key,
                                              "node '\(sourceName)' (\(source.description.kind)) has no output '\(parts[1])'",
                                              hint: near.map { "did you mean '\(sourceName).\($0)'?" }
                                                ?? "its outputs: \(outputs.map(\.name).joined(separator: ", "))"))
                    continue
                }
                port = p
            } else if outputs.count == 1 {
                port = outputs[0]
            } else if outputs.isEmpty {
                errors.append(ConfigError(r.location, key: key, "node '\(sourceName)' has no outputs"))
                continue
            } else {
                let input = built[r.node]!.description.inputs.first { $0.name == r.input }!
                var fitting = outputs.filter { $0.typeID == input.typeID }
                // Several of the right type: the one named like the input (`video: src` takes
                // `src.video`), else the user names one.
                if fitting.count > 1, let same = fitting.first(where: { $0.name == input.name }) { fitting = [same] }
                guard fitting.count == 1 else {
                    errors.append(ConfigError(r.location, key: key, "node '\(sourceName)' has several outputs",
                                              hint: "name one: " + outputs.map { "\(sourceName).\($0.name)" }.joined(separator: ", ")))
                    continue
                }
                port = fitting[0]
            }
            let input = built[r.node]!.description.inputs.first { $0.name == r.input }!
            guard input.typeID == port.typeID else {
                errors.append(ConfigError(r.location, key: key,
                                          "input '\(r.input)' takes \(input.typeName) but \(sourceName).\(port.name) gives \(port.typeName)"))
                continue
            }
            built[r.node]!.inputs[r.input] = PortReference(node: sourceName, port: port.name)
        }
    }

    /// Every required input connected.
    mutating func requireInputs() {
        for name in order {
            let n = built[name]!
            for input in n.description.inputs where !input.isOptional && n.inputs[input.name] == nil {
                let spec = self.spec.nodes.first { $0.name == name }!
                let alreadyReported = references.contains { $0.node == name && $0.input == input.name }
                if !alreadyReported {
                    errors.append(ConfigError(spec.location, key: "nodes.\(name)",
                                              "input '\(input.name)' (\(input.typeName)) is not connected",
                                              hint: "add '\(input.name): <node>.<output>'"))
                }
            }
        }

        // A node with inputs but none connected would have nothing to process.
        for name in order {
            let n = built[name]!
            if !n.description.inputs.isEmpty && n.inputs.isEmpty && !errors.contains(where: { $0.key.hasPrefix("nodes.\(name)") }) {
                let spec = self.spec.nodes.first { $0.name == name }!
                errors.append(ConfigError(spec.location, key: "nodes.\(name)", "none of the node's inputs is connected",
                                          hint: "connect at least one of: " + n.description.inputs.map(\.name).joined(separator: ", ")))
            }
        }
    }

    /// Topological order; whatever is left sits on a cycle.
    mutating func orderTopologically() {
        var indegree = Dictionary(uniqueKeysWithValues: order.map { ($0, 0) })
        for name in order { indegree[name] = Set(built[name]!.inputs.values.map(\.node)).count }
        var ready = order.filter { indegree[$0] == 0 }
        while !ready.isEmpty {
            let n = ready.removeFirst()
            sorted.append(n)
            for m in order where m != n && built[m]!.inputs.values.contains(where: { $0.node == n }) {
                indegree[m]! -= 1
                if indegree[m] == 0 { ready.append(m) }
            }
        }
        if sorted.count < order.count {
            let cyclic = order.filter { !sorted.contains($0) }
            let first = spec.nodes.first { $0.name == cyclic[0] }!
            errors.append(ConfigError(first.location, key: "nodes.\(cyclic[0])",
                                      "the graph has a cycle through \(cyclic.joined(separator: " → "))",
                                      hint: "a node cannot consume its own output, directly or through others"))
        }
    }

    /// Image formats: what each output gives, producers first; an input that declares the
    /// formats it takes is checked here, or on each packet when its producer declares nothing.
    mutating func checkImageFormats() {
        var given: [PortReference: [PixelFormat]] = [:]
        for name in sorted {
            let n = built[name]!
            for input in n.description.inputs {
                guard let accepted = input.formats, let source = n.inputs[input.name] else { continue }
                guard let formats = given[source] else {
                    built[name]!.formatChecks[input.name] = accepted
                    continue
                }
                let refused = formats.filter { !accepted.contains($0) }
                guard refused.isEmpty else {
                    let r = references.first { $0.node == name && $0.input == input.name }!
                    errors.append(ConfigError(r.location, key: "nodes.\(name).\(input.name)",
                                              "input '\(input.name)' takes \(formatList(accepted)) images but \(source) gives \(formatList(formats))",
                                              hint: "run 'cinegraph nodes \(n.description.kind)' for what each port takes"))
                    continue
                }
            }
            for output in n.description.outputs {
                let ref = PortReference(node: name, port: output.name)
                if let f = output.formats {
                    given[ref] = f
                } else if let input = output.sameFormatAs, let source = n.inputs[input], let f = given[source] {
                    given[ref] = f
                }
            }
        }
    }

    /// Each node checks its parameters together, on a configured instance that never runs, then
    /// against the nodes feeding it (``Node/validate(upstream:)``): in topological order every
    /// producer's parameters are known by then.
    mutating func checkParameters() {
        for name in sorted {
            let (node, slots) = built[name]!.instantiate()
            let specNode = spec.nodes.first { $0.name == name }!
            let upstream = built[name]!.inputs.reduce(into: [String: UpstreamNode]()) { out, input in
                guard let producer = built[input.value.node] else { return }
                out[input.key] = UpstreamNode(name: producer.name, kind: producer.description.kind,
                                              output: input.value.port, parameters: producer.parameterTexts)
            }
            do {
                try node.validate()
                if !upstream.isEmpty { try node.validate(upstream: upstream) }
                if preflight { try node.preflight() }
            } catch let p as ParameterError {
                let owner = p.node ?? name, ownerNode = spec.nodes.first { $0.name == owner } ?? specNode
                let entry = p.parameter.flatMap { param in ownerNode.entries.first { $0.key == param } }
                errors.append(ConfigError(entry?.value.location ?? ownerNode.location,
                                          key: "nodes.\(owner)" + (p.parameter.map { ".\($0)" } ?? ""),
                                          p.message, hint: p.hint))
            } catch {
                errors.append(ConfigError(specNode.location, key: "nodes.\(name)", "\(error)"))
            }
            built[name]!.parameterTexts = Dictionary(uniqueKeysWithValues: slots.parameters.map { ($0.name, $0.currentText) })
            let upstreamLive = built[name]!.inputs.values.contains { built[$0.node]?.isLive ?? false }
            built[name]!.isLive = node.isLive || upstreamLive
        }
    }

    /// Priorities, consumers before producers: written, else the kind's, else the take if any
    /// consumer is part of the take, else preview; a node nobody consumes is part of the take.
    mutating func assignPriorities() {
        for name in sorted.reversed() {
            let n = built[name]!
            let consumers = sorted.filter { c in built[c]!.inputs.values.contains { $0.node == name } }
            let inherited: NodePriority = consumers.isEmpty || consumers.contains { built[$0]!.priority == .take }
                ? .take : .preview
            built[name]!.priority = n.declaredPriority ?? n.description.priority ?? inherited
        }
    }
}

/// `i420 or gray8`, `i420, nv12 or rgba8`.
func formatList(_ formats: [PixelFormat]) -> String {
    let names = formats.map(\.rawValue)
    return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
}
