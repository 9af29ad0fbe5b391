// GraphControl: the running graph as one node sees it — send control messages to other nodes,
// subscribe to events and read the counters. A viewfinder or a remote-control node uses it.
import Synchronization

/// A handle on the running graph, given to every node through ``NodeContext/graph``.
///
/// It is the same control channel ``GraphRunner`` offers embedders: a node that serves a user
/// interface (the web viewfinder, for example) forwards taps as node commands with
/// ``send(_:to:reply:)`` and streams the events it receives from ``subscribe(_:)``.
/// Replies and events arrive on other nodes' threads: return quickly.
public final class GraphControl: Sendable {
    /// Every node of the graph, in topological order.
    public let nodes: [GraphNode]
    private let route: Mutex<[String: NodeRunner]>
    private let events: EventHub
    private let summaryProvider = Mutex<(@Sendable () -> RunSummary?)?>(nil)

    init(nodes: [GraphNode], events: EventHub) {
        self.nodes = nodes
        self.route = Mutex([:])
        self.events = events
    }

    func connect(_ runners: [String: NodeRunner], summary: @escaping @Sendable () -> RunSummary?) {
        route.withLock { $0 = runners }
        summaryProvider.withLock { $0 = summary }
    }

    /// The names of the nodes of kind `kind` (for example every `focus` node).
    public func nodes(ofKind kind: String) -> [String] {
        nodes.filter { $0.description.kind == kind }.map(\.name)
    }

    /// Sends a control message to node `node`; `reply` is called on that node's thread.
    /// A node may send to itself only asynchronously: the reply comes after its current call.
    public func send(_ message: ControlMessage, to node: String,
                     reply: @escaping @Sendable (Result<String, any Error>) -> Void) {
        guard let runner = route.withLock({ $0[node] }) else {
            let near = closestMatch(to: node, in: nodes.map(\.name))
            reply(.failure(ControlError("no node named '\(node)'" + (near.map { "; did you mean '\($0)'?" } ?? ""))))
            return
        }
        if !runner.inbox.post(PendingControl(message: message, reply: reply)) {
            reply(.failure(ControlError("node '\(node)' has finished")))
        }
    }

    /// Sends a control message and waits for the reply (never call it from a node's own thread
    /// for a message to that same node).
    public func send(_ message: ControlMessage, to node: String) async throws -> String {
        try await withCheckedThrowingContinuation { c in
            send(message, to: node) { c.resume(with: $0) }
        }
    }

    /// Calls `handler` for every event any node posts.
    public func subscribe(_ handler: @escaping @Sendable (GraphEvent) -> Void) { events.subscribe(handler) }

    /// The counters now (fps, drops, per-node time); `nil` before the graph has started.
    public func summary() -> RunSummary? { summaryProvider.withLock { $0 }?() ?? nil }
}
