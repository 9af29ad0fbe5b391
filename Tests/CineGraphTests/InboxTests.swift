// The join in front of a node: exact instants, and for previews the newest instant every port
// holds (a preview behind its inputs catches up at once instead of showing stale frames).
import CineMedia
import Testing
@testable import CineGraph

@Suite struct InboxTests {
    func inbox(newestWins: Bool) -> Inbox {
        let edge = { (port: String) in
            EdgeStats(consumer: PortReference(node: "n", port: port), producer: PortReference(node: "p", port: port),
                      policy: .dropOldest, capacity: 16, priority: newestWins ? .preview : .take)
        }
        return Inbox(edges: [edge("fast"), edge("slow")], newestWins: newestWins)
    }

    func joined(_ next: Inbox.Next) -> Timestamp? {
        if case .instant(let t, _, _, _, _) = next { return t }
        return nil
    }

    /// The fast port holds frames 0…9, the slow one 0…5: a take node works through 0, 1, …;
    /// a preview jumps to 5, the newest both hold, and counts 5 + 5 shed.
    @Test func aPreviewJoinsTheNewestInstantEveryPortHolds() {
        for newestWins in [false, true] {
            let box = inbox(newestWins: newestWins)
            for i in 0..<10 { box.push(Packet(timestamp: Timestamp(frame: i, fps: 30), body: .value(i)), port: 0) }
            for i in 0..<6 { box.push(Packet(timestamp: Timestamp(frame: i, fps: 30), body: .value(i)), port: 1) }
            let first = joined(box.next())
            #expect(first == Timestamp(frame: newestWins ? 5 : 0, fps: 30))
            let shed = box.snapshot().map(\.dropped)
            #expect(shed == (newestWins ? [5, 5] : [0, 0]))
            // The fast port's newer frames stay for the slow port to catch up with.
            box.push(Packet(timestamp: Timestamp(frame: 6, fps: 30), body: .value(6)), port: 1)
            if newestWins { #expect(joined(box.next()) == Timestamp(frame: 6, fps: 30)) }
        }
    }

    /// An instant says how many complete instants wait behind it, and which nodes upstream were
    /// carried forward for it (the union of its packets').
    @Test func anInstantKnowsItsBacklogAndWhatWasCarried() {
        let box = inbox(newestWins: false)
        for i in 0..<5 {
            box.push(Packet(timestamp: Timestamp(frame: i, fps: 30), body: .value(i), carried: i == 0 ? ["disparity"] : []), port: 0)
        }
        for i in 0..<3 {
            box.push(Packet(timestamp: Timestamp(frame: i, fps: 30), body: .value(i), carried: i == 0 ? ["detector"] : []), port: 1)
        }
        guard case .instant(_, _, let carried, let stale, let backlog) = box.next() else { Issue.record("no instant"); return }
        #expect(carried == ["detector", "disparity"])
        #expect(stale == [true, true])
        #expect(backlog == 2)  // frames 1 and 2 are complete; 3 and 4 wait for the slow port
        guard case .instant(_, _, let none, let fresh, let rest) = box.next() else { Issue.record("no instant"); return }
        #expect(none.isEmpty && fresh == nil && rest == 1)
    }

    /// Two complete instants waiting (a branch a frame or two late) are worked through, not shed.
    @Test func aPreviewWorksThroughAShortBacklog() {
        let box = inbox(newestWins: true)
        for i in 0..<3 { box.push(Packet(timestamp: Timestamp(frame: i, fps: 30), body: .value(i)), port: 0) }
        for i in 0..<2 { box.push(Packet(timestamp: Timestamp(frame: i, fps: 30), body: .value(i)), port: 1) }
        #expect(joined(box.next()) == Timestamp(frame: 0, fps: 30))
        #expect(joined(box.next()) == Timestamp(frame: 1, fps: 30))
        #expect(box.snapshot().map(\.dropped) == [0, 0])
    }

    /// With no instant on every port yet, the preview waits like any join (nothing is shed).
    @Test func aPreviewWithNoCommonInstantKeepsWaitingForIt() {
        let box = inbox(newestWins: true)
        box.push(Packet(timestamp: Timestamp(frame: 3, fps: 30), body: .value(3)), port: 0)
        box.push(Packet(timestamp: Timestamp(frame: 1, fps: 30), body: .value(1)), port: 1)
        box.push(Packet(timestamp: Timestamp(frame: 3, fps: 30), body: .end), port: 1)
        #expect({ if case .end = box.next() { return true } else { return false } }())
    }
}
