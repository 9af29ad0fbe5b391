// EditLease: one tab edits a take at a time. The page claims the take when it opens and shows
// its lease with every request; a second tab is told the take is open elsewhere and may take
// it over. A lease not heard from for a while lapses (a tab closed without saying so).
import Foundation
import Synchronization

/// Which page holds the take.
final class EditLease: Sendable {
    private struct Holder { var id: String; var lastSeen: Date }
    private let holder = Mutex<Holder?>(nil)
    /// A holder silent this long loses the take to the next claim.
    let lapse: TimeInterval

    init(lapse: TimeInterval = 15) { self.lapse = lapse }

    /// A new lease for the caller; `force` takes the take from a live holder.
    /// - Throws: `conflict` while another page holds it (and `force` is false).
    func claim(force: Bool) throws(EditError) -> String {
        let id = UUID().uuidString
        let now = Date()
        let taken = holder.withLock { h -> Bool in
            if let current = h, !force, now.timeIntervalSince(current.lastSeen) < lapse { return false }
            h = Holder(id: id, lastSeen: now)
            return true
        }
        guard taken else { throw Self.elsewhere }
        return id
    }

    /// Checks that `id` holds the take (and notes that it is alive).
    /// - Throws: `conflict` when another page holds it, or nobody claimed it.
    func check(_ id: String?) throws(EditError) {
        let ok = holder.withLock { h -> Bool in
            guard let current = h, let id, current.id == id else { return false }
            h!.lastSeen = Date()
            return true
        }
        guard ok else { throw Self.elsewhere }
    }

    /// Notes that `id` is alive, when it holds the take; says whether it does.
    func touch(_ id: String?) -> Bool { (try? check(id)) != nil }

    static let elsewhere = EditError(
        .conflict, "this take is open for editing in another tab or window; edit it there, or take it over here")
}
