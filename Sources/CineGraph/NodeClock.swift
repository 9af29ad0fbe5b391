// NodeClock: the clock a node's context paces live sources by — the machine's in a running
// graph, a manual one in the node harness, so that tests of live sources never sleep.
import Dispatch
import Foundation
import Synchronization

/// Monotonic time for ``NodeContext/pace(until:)``, in nanoseconds.
public protocol NodeClock: Sendable {
    /// Now, in nanoseconds since an arbitrary origin.
    var nowNanoseconds: UInt64 { get }
    /// Waits until `deadline` (in ``nowNanoseconds``' terms) or until `cancelled` says stop,
    /// whichever comes first.
    func sleep(until deadline: UInt64, cancelled: () -> Bool)
}

/// The machine's monotonic clock (`DispatchTime`): what running graphs use.
public struct SystemNodeClock: NodeClock {
    /// Creates the clock.
    public init() {}
    public var nowNanoseconds: UInt64 { DispatchTime.now().uptimeNanoseconds }
    public func sleep(until deadline: UInt64, cancelled: () -> Bool) {
        while !cancelled() {
            let now = nowNanoseconds
            guard deadline > now else { return }
            usleep(UInt32(min(deadline - now, 50_000_000) / 1000))  // 50 ms slices: a drain is noticed soon
        }
    }
}

/// A clock that moves only when told to, or when a node waits on it (the wait ends at once, the
/// clock set to its deadline): ``NodeHarness`` runs live sources on one, instantly.
public final class ManualNodeClock: NodeClock {
    private let now = Mutex<UInt64>(0)
    /// Creates a clock at `start` nanoseconds.
    public init(start: UInt64 = 0) { now.withLock { $0 = start } }
    public var nowNanoseconds: UInt64 { now.withLock { $0 } }
    /// Moves the clock forward by `nanoseconds`.
    public func advance(by nanoseconds: UInt64) { now.withLock { $0 &+= nanoseconds } }
    public func sleep(until deadline: UInt64, cancelled: () -> Bool) {
        now.withLock { $0 = max($0, deadline) }
    }
}
