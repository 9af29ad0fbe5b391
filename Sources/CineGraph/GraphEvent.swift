// GraphEvent and EventHub: what nodes report while running, delivered to subscribers.
import CineMedia
import Synchronization

/// Something a node reports while running (a still saved, a recording started, a warning).
public struct GraphEvent: Sendable, CustomStringConvertible {
    /// The node that posted it.
    public var node: String
    /// Event name, for example `still-saved`.
    public var name: String
    /// The instant it refers to.
    public var timestamp: Timestamp
    /// Details as text.
    public var fields: [String: String]

    public var description: String {
        let details = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(node): \(name)\(details.isEmpty ? "" : " " + details)"
    }
}

/// Fans events out to subscribers. Subscribers are called on the posting node's thread:
/// they must return quickly.
final class EventHub: Sendable {
    private let subscribers = Mutex<[@Sendable (GraphEvent) -> Void]>([])
    func subscribe(_ handler: @escaping @Sendable (GraphEvent) -> Void) { subscribers.withLock { $0.append(handler) } }
    func publish(_ event: GraphEvent) {
        for s in subscribers.withLock({ $0 }) { s(event) }
    }
}

/// A flag set once, read from any thread.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
