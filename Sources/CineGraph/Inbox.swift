// Inbox: the bounded queues in front of one node — one per input port — plus its control
// mailbox. Producers push; the node's thread pops joined instants.
import CineMedia
import Foundation

/// What travels along an edge.
enum PacketBody: @unchecked Sendable {
    /// A value of the port's type (`any Sendable`, checked by the graph's typing).
    case value(any Sendable)
    /// The producer processed this instant but had nothing for this port.
    case skip
    /// No more packets on this edge.
    case end
}

/// One packet on an edge: a timestamp and a body.
struct Packet: Sendable {
    var timestamp: Timestamp
    var body: PacketBody
    /// Nodes whose outputs were carried forward for this instant, at or upstream of the producer.
    var carried: [String] = []
}

/// How an edge behaves when its queue is full.
public enum EdgePolicy: String, Sendable {
    /// Live: drop the oldest queued packet and count it. A camera never waits for a slow consumer.
    case dropOldest = "drop-oldest"
    /// Offline: the producer waits. Nothing is lost.
    case block
}

/// Counters of one edge (one input port), read by the status line and the summary.
public struct EdgeStats: Sendable {
    /// The input port this edge feeds, `node.port`.
    public var consumer: PortReference
    /// The output it comes from.
    public var producer: PortReference
    public var policy: EdgePolicy
    public var capacity: Int
    /// The priority of the node it feeds: drops into the take are losses, into previews shedding.
    public var priority: NodePriority = .take
    /// Packets accepted.
    public var pushed = 0
    /// Packets dropped because the queue was full (live edges only).
    public var dropped = 0
    /// Packets waiting now.
    public var depth = 0
    /// The largest depth seen.
    public var maxDepth = 0
}

/// A control request waiting for the node's thread.
struct PendingControl: Sendable {
    var message: ControlMessage
    var reply: @Sendable (Result<String, any Error>) -> Void
}

/// The queues in front of one node. All state is guarded by `condition`'s lock.
final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var queues: [[Packet]]
    private(set) var stats: [EdgeStats]
    private var controls: [PendingControl] = []
    private var discarding = false
    private var aborted = false
    /// Threads waiting in `next()` (the consumer) and in `push` (producers on a full blocking edge):
    /// wake-ups are sent only when someone waits, which keeps a flowing stream free of syscalls.
    private var waitingConsumer = false
    private var waitingProducers = 0

    /// Previews: a join more than ``previewBacklog`` instants behind takes the newest instant every
    /// port holds and sheds the older ones, so a node behind its inputs catches up at once instead
    /// of working through stale frames.
    private let newestWins: Bool

    init(edges: [EdgeStats], newestWins: Bool = false) {
        self.newestWins = newestWins
        stats = edges
        queues = edges.map { e in
            var q: [Packet] = []
            q.reserveCapacity(e.capacity + 1)
            return q
        }
    }

    /// Adds a packet to port `port`; on a full queue drops the oldest (live) or waits (offline).
    func push(_ packet: Packet, port: Int) {
        condition.lock()
        defer { condition.unlock() }
        while queues[port].count >= stats[port].capacity && !discarding && !aborted {
            if stats[port].policy == .dropOldest {
                if let i = queues[port].firstIndex(where: { if case .end = $0.body { return false } else { return true } }) {
                    queues[port].remove(at: i)
                    stats[port].dropped += 1
                }
                break
            }
            waitingProducers += 1
            condition.wait()
            waitingProducers -= 1
        }
        if discarding || aborted { return }
        queues[port].append(packet)
        stats[port].pushed += 1
        stats[port].depth = queues[port].count
        stats[port].maxDepth = max(stats[port].maxDepth, queues[port].count)
        if waitingConsumer { condition.broadcast() }
    }

    /// Queues a control request and wakes the node.
    func post(_ control: PendingControl) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if discarding || aborted { return false }
        controls.append(control)
        condition.broadcast()
        return true
    }

    /// Takes waiting control requests without blocking.
    func takeControls() -> [PendingControl] {
        condition.lock()
        defer { condition.unlock() }
        let c = controls
        controls.removeAll(keepingCapacity: true)
        return c
    }

    enum Next {
        /// Packets of one instant, one per port (`nil` for a skip); the nodes carried upstream
        /// (the union of the packets', sorted); which ports' packets were carried (an earlier
        /// frame's value; `nil` when none was, the usual case: no allocation); and how many
        /// complete instants still wait behind it.
        case instant(Timestamp, [(any Sendable)?], carried: [String], stale: [Bool]?, backlog: Int)
        /// Requests for the control channel.
        case controls([PendingControl])
        /// An input ended: no instant can be joined any more.
        case end
        case aborted
    }

    /// Waits for the next joined instant, control request, end or abort.
    ///
    /// Join rule: the heads of all ports must carry the same timestamp. A head older than
    /// another port's head can never be joined (streams are time-ordered) and is discarded
    /// and counted as dropped. Cost: O(ports) per instant, no allocation but the result array.
    func next() -> Next {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if aborted { return .aborted }
            if !controls.isEmpty {
                let c = controls
                controls.removeAll(keepingCapacity: true)
                return .controls(c)
            }
            if queues.allSatisfy({ !$0.isEmpty }) {
                if queues.contains(where: { if case .end = $0[0].body { return true } else { return false } }) {
                    return .end
                }
                if newestWins, queues.count > 1, shedToNewestCommonInstant() { continue }
                let newest = queues.map { $0[0].timestamp }.max()!
                var discarded = false
                for p in queues.indices where queues[p][0].timestamp < newest {
                    queues[p].removeFirst()
                    stats[p].dropped += 1
                    stats[p].depth = queues[p].count
                    discarded = true
                }
                if discarded {
                    if waitingProducers > 0 { condition.broadcast() }
                    continue
                }
                var values: [(any Sendable)?] = []
                values.reserveCapacity(queues.count)
                var carried: [String] = []
                var stale: [Bool]?
                var backlog = Int.max
                for p in queues.indices {
                    let packet = queues[p].removeFirst()
                    stats[p].depth = queues[p].count
                    if case .value(let v) = packet.body { values.append(v) } else { values.append(nil) }
                    if !packet.carried.isEmpty {
                        if stale == nil { stale = [Bool](repeating: false, count: queues.count) }
                        stale![p] = true
                        carried = carried.isEmpty ? packet.carried : Array(Set(carried + packet.carried)).sorted()
                    }
                    // The instants still queued on this port (an end of stream is not one).
                    let ended = queues[p].last.map { if case .end = $0.body { return true } else { return false } } ?? false
                    backlog = min(backlog, queues[p].count - (ended ? 1 : 0))
                }
                if waitingProducers > 0 { condition.broadcast() }
                return .instant(newest, values, carried: carried, stale: stale, backlog: backlog)
            }
            waitingConsumer = true
            condition.wait()
            waitingConsumer = false
        }
    }

    /// Complete instants a preview join may have waiting before it sheds to the newest: a frame
    /// or two of jitter costs at most 67 ms at 30 fps and loses nothing.
    static let previewBacklog = 2

    /// When more than ``previewBacklog`` instants wait complete, drops on every port the packets
    /// older than the newest instant all ports hold (counted as dropped); returns whether it
    /// dropped any. Cost: O(ports × depth), depth ≤ the capacity.
    /// Caller holds the lock; every queue is non-empty and no head is an end.
    private func shedToNewestCommonInstant() -> Bool {
        var common: Timestamp?
        var complete = 0
        for packet in queues[0].reversed() {
            if case .end = packet.body { continue }
            let t = packet.timestamp
            if queues.dropFirst().allSatisfy({ q in q.contains { $0.timestamp == t } }) {
                if common == nil { common = t }
                complete += 1
                if complete > Self.previewBacklog { break }
            }
        }
        // A short backlog (one branch a frame or two late, a burst) is worked through: shed
        // only when more instants wait complete than that.
        guard let common, complete > Self.previewBacklog else { return false }
        var dropped = false
        for p in queues.indices {
            let older = queues[p].prefix { $0.timestamp < common }.count
            guard older > 0 else { continue }
            queues[p].removeFirst(older)
            stats[p].dropped += older
            stats[p].depth = queues[p].count
            dropped = true
        }
        if dropped && waitingProducers > 0 { condition.broadcast() }
        return dropped
    }

    /// From now on pushes are dropped (the node has finished or failed) and waiting producers are released.
    func discard() {
        condition.lock()
        discarding = true
        for p in queues.indices {
            queues[p].removeAll()
            stats[p].depth = 0
        }
        let c = controls
        controls.removeAll()
        condition.broadcast()
        condition.unlock()
        for pending in c { pending.reply(.failure(NodeCommandError("the node has finished"))) }
    }

    /// Stops everything now: waits return, pushes are dropped.
    func abort() {
        condition.lock()
        aborted = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether ``abort()`` was called.
    var isAborted: Bool {
        condition.lock()
        defer { condition.unlock() }
        return aborted
    }

    /// A snapshot of the edge counters.
    func snapshot() -> [EdgeStats] {
        condition.lock()
        defer { condition.unlock() }
        return stats
    }
}
