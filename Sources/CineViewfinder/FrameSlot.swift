// FrameSlot: the newest frame, kept for viewers — the graph's thread drops a frame in and
// returns at once; viewers wait (asynchronously) for one newer than the last they got.
import Synchronization

/// Holds the newest frame and wakes the viewers waiting for it.
final class FrameSlot: Sendable {
    private struct State {
        var frame: ViewfinderFrame?
        var sequence = 0
        var closed = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Replaces the frame; constant time, no allocation beyond the waiters' wake-up.
    func put(_ frame: ViewfinderFrame) {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.frame = frame
            s.sequence += 1
            let w = Array(s.waiters.values)
            s.waiters.removeAll(keepingCapacity: true)
            return w
        }
        for c in woken { c.resume() }
    }

    /// The newest frame and its sequence number (0 = none yet).
    var newest: (frame: ViewfinderFrame?, sequence: Int) { state.withLock { ($0.frame, $0.sequence) } }

    /// Wakes every waiter for good: ``next(after:)`` returns `nil` from now on.
    func close() {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            let w = Array(s.waiters.values)
            s.waiters.removeAll()
            return w
        }
        for c in woken { c.resume() }
    }

    /// Waits for a frame newer than `sequence`; `nil` once closed or when the task is cancelled.
    func next(after sequence: Int) async -> (frame: ViewfinderFrame, sequence: Int)? {
        while true {
            let now = state.withLock { s -> (ViewfinderFrame, Int)?? in
                if s.closed { return .some(nil) }
                if s.sequence > sequence, let f = s.frame { return .some((f, s.sequence)) }
                return nil
            }
            if let now { return now }
            if Task.isCancelled { return nil }
            let id = state.withLock { s -> Int in
                s.nextWaiter += 1
                return s.nextWaiter
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { s -> Bool in
                        if s.closed || s.sequence > sequence || s.cancelled.remove(id) != nil { return true }
                        s.waiters[id] = c
                        return false
                    }
                    if resumeNow { c.resume() }
                }
            } onCancel: {
                let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    if let c = s.waiters.removeValue(forKey: id) { return c }
                    s.cancelled.insert(id)
                    return nil
                }
                c?.resume()
            }
        }
    }
}
