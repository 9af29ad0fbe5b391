// Graph: a validated graph, ready to run — every kind known, every value parsed, every
// connection typed, no cycles. Built from a GraphSpec by GraphBuilder.

import CineMedia

/// An output port of a named node: what an input is connected to.
public struct PortReference: Sendable, Hashable, CustomStringConvertible {
    public var node: String
    public var port: String
    public init(node: String, port: String) {
        self.node = node
        self.port = port
    }
    public var description: String { "\(node).\(port)" }
}

/// One node of a validated graph.
public struct GraphNode: Sendable {
    /// The node's name.
    public var name: String
    /// Its kind's declaration.
    public var description: NodeDescription
    /// Parameters set by the config, parsed and range-checked, by config name.
    var parameterValues: [(name: String, value: any Sendable)]
    /// Every parameter's value as text (defaults included), for display.
    public var parameterTexts: [String: String]
    /// Input port name → the output it is connected to.
    public var inputs: [String: PortReference]
    /// Whether packets reaching this node come from a live source.
    public var isLive: Bool
    /// What the node's work serves, resolved when the graph is built (``NodePriority``).
    public var priority: NodePriority = .take
    /// The `priority:` written in the config, if any.
    var declaredPriority: NodePriority?
    /// Inputs whose producer declares no image formats: input name → the formats it takes,
    /// checked on each packet before the node sees it.
    var formatChecks: [String: [PixelFormat]] = [:]

    /// A new instance of the node with the configured parameters applied.
    func instantiate() -> (any Node, NodeSlots) {
        let node = description.makeNode()
        let slots = NodeSlots(of: node)
        for (name, value) in parameterValues {
            slots.parameters.first { $0.name == name }?.assign(value)
        }
        return (node, slots)
    }
}

/// A validated graph: nodes in topological order (every producer before its consumers).
public struct Graph: Sendable {
    /// The graph's name.
    public var name: String
    /// The config file it came from.
    public var file: String
    /// Nodes, producers first.
    public var nodes: [GraphNode]

    /// The node called `name`.
    public func node(named name: String) -> GraphNode? { nodes.first { $0.name == name } }

    /// Output port → the (node, input port) pairs it feeds.
    public var consumers: [PortReference: [PortReference]] {
        var map: [PortReference: [PortReference]] = [:]
        for n in nodes {
            for (input, source) in n.inputs.sorted(by: { $0.key < $1.key }) {
                map[source, default: []].append(PortReference(node: n.name, port: input))
            }
        }
        return map
    }
}
