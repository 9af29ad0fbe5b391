// NodeRegistry: maps kind names to node types.
import Synchronization

/// The node kinds a graph may use, by kind name. Built-in kinds, embedders' kinds and plugins'
/// kinds all register here.
public final class NodeRegistry: Sendable {
    private let table = Mutex<[String: NodeDescription]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Registers a node kind; a later registration of the same kind replaces the earlier one.
    public func register<N: Node>(_ type: N.Type) {
        let d = NodeDescription(type)
        table.withLock { $0[d.kind] = d }
    }

    /// Registers a node kind whose every instance is set up by `configure` after `init()`: how a
    /// kind receives what the program gives it (a server's observer, the frame callbacks), with
    /// no process-wide table. Parameters still come from the graph.
    public func register<N: Node>(_ type: N.Type, configure: @escaping @Sendable (inout N) -> Void) {
        let d = NodeDescription(type, make: {
            var node = N()
            configure(&node)
            return node
        })
        table.withLock { $0[d.kind] = d }
    }

    /// The description of `kind`, if registered.
    public func description(of kind: String) -> NodeDescription? { table.withLock { $0[kind] } }

    /// All registered kinds, sorted by name.
    public var descriptions: [NodeDescription] {
        table.withLock { Array($0.values) }.sorted { $0.kind < $1.kind }
    }

    /// All registered kind names, sorted.
    public var kinds: [String] { descriptions.map(\.kind) }
}
