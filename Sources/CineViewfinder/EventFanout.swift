// EventFanout: the event stream's subscribers — each gets its own bounded buffer, so a slow
// client loses old messages instead of slowing the graph or the other clients.
import Synchronization

/// Sends text messages to every connected event client without waiting for any.
final class EventFanout: Sendable {
    private let clients = Mutex<[Int: AsyncStream<String>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)
    private let count = Atomic<Int>(0)

    /// Messages a client may fall behind by before the oldest are dropped.
    static let bufferLimit = 256

    /// Whether anybody listens (so the producer can skip building messages).
    var hasClients: Bool { count.load(ordering: .relaxed) > 0 }

    /// Adds a client; returns its id and its stream of messages.
    func add() -> (Int, AsyncStream<String>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: String.self,
            bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        clients.withLock { $0[id] = continuation }
        count.add(1, ordering: .relaxed)
        return (id, stream)
    }

    /// Removes a client.
    func remove(_ id: Int) {
        if let c = clients.withLock({ $0.removeValue(forKey: id) }) {
            c.finish()
            count.subtract(1, ordering: .relaxed)
        }
    }

    /// Queues `text` for every client.
    func send(_ text: String) {
        for c in clients.withLock({ Array($0.values) }) { c.yield(text) }
    }

    /// Ends every client's stream.
    func closeAll() {
        let all = clients.withLock { c -> [AsyncStream<String>.Continuation] in
            let v = Array(c.values)
            c.removeAll()
            return v
        }
        count.store(0, ordering: .relaxed)
        for c in all { c.finish() }
    }
}
