// The cinematic script: the decision rules (base / weak / strong, track ends), rack placement
// before a decision, queries, edits and the versioned JSON.
import CineMedia
import CineVision
import Foundation
import Testing

/// Seconds as a timestamp, to keep tables short.
func ts(_ seconds: Double) -> Timestamp { Timestamp(seconds: seconds) }

/// A body detection of subject `group` at disparity `d`.
func body(_ group: Int, _ d: Double, x: Double = 0.4) -> Detection {
    Detection(
        id: 2 * group, groupID: group, type: .humanBody,
        bounds: NormalizedRect(x: x, y: 0.3, width: 0.2, height: 0.6), disparity: d)
}

/// A script with frames every 0.1 s from 0 to `until`, subjects given as (group, disparity, present-range).
func scriptWithFrames(until: Double = 10, _ subjects: [(Int, Double, ClosedRange<Double>)]) throws -> CinematicScript {
    var s = CinematicScript()
    for i in 0...Int(until * 10) {
        let t = Double(i) / 10
        let dets = subjects.filter { $0.2.contains(t) }.map { body($0.0, $0.1) }
        try s.append(CinematicFrame(time: ts(t), detections: dets, focusDisparity: 0))
    }
    return s
}

@Suite struct CinematicScriptTests {
    /// A decision as (time, group, kind).
    typealias Row = (Double, Int, FocusDecisionKind)

    struct RuleCase: Sendable, CustomTestStringConvertible {
        var name: String
        var decisions: [Row]
        /// (time, group of the decision in force)
        var expect: [(Double, Int?)]
        var testDescription: String { name }
    }

    static let ruleCases: [RuleCase] = [
        RuleCase(
            name: "weakDecisionYieldsToNextBaseDecision",
            decisions: [(1, 1, .base), (2, 2, .weakUser), (4, 3, .base)],
            expect: [(1.5, 1), (3, 2), (4.5, 3)]),
        RuleCase(
            name: "strongDecisionHoldsUntilNextUserDecision",
            decisions: [(1, 1, .base), (2, 2, .strongUser), (4, 3, .base), (6, 1, .weakUser), (8, 3, .base)],
            expect: [(3, 2), (5, 2), (7, 1), (9, 3)]),
        RuleCase(
            name: "baseDecisionsResumeWhenTheStrongTrackEnds",
            // group 2 leaves the frame after 5 s: the last base decision (group 3) resumes.
            decisions: [(1, 1, .base), (2, 2, .strongUser), (4, 3, .base)],
            expect: [(4.5, 2), (5.05, 2), (5.2, 3), (8, 3)]),
        RuleCase(
            name: "strongDecisionIgnoresLaterBaseDecisions",
            decisions: [(1, 1, .base), (2, 3, .strongUser), (3, 1, .base), (4, 2, .base)],
            expect: [(3.5, 3), (9, 3)]),
        RuleCase(
            name: "userDecisionAtTheSameTimeAsABaseDecisionWins",
            decisions: [(1, 1, .base), (2, 2, .base), (2, 3, .weakUser)],
            expect: [(1.5, 1), (2.5, 3)]),
    ]

    @Test(arguments: ruleCases) func decisionRules(_ c: RuleCase) throws {
        var s = try scriptWithFrames([(1, 80, 0...10), (2, 50, 0...5), (3, 30, 0...10)])
        for (t, g, kind) in c.decisions { s.add(FocusDecision(time: ts(t), target: .group(g), kind: kind)) }
        let effective = s.effectiveDecisions()
        for (t, g) in c.expect {
            let inForce = effective.last { $0.time <= ts(t) }?.decision.target
            #expect(inForce == g.map { .group($0) }, "\(c.name) at \(t)s")
        }
    }

    @Test func strongTrackEndsWhenTheGroupLeavesNotWhenTheFaceTurns() throws {
        var s = CinematicScript()
        for i in 0...30 {
            let t = Double(i) / 10
            var dets = [body(1, 60)]
            if t < 1 || t > 2 {
                dets.append(
                    Detection(
                        id: 1, groupID: 1, type: .humanFace,
                        bounds: NormalizedRect(x: 0.45, y: 0.3, width: 0.1, height: 0.1),
                        disparity: 60))
            }
            if t > 2.5 { dets = [] }
            try s.append(CinematicFrame(time: ts(t), detections: dets, focusDisparity: 0))
        }
        let strong = FocusDecision(time: ts(0.5), target: .detection(1), kind: .strongUser)
        try s.addUserDecision(strong)
        #expect(s.trackEnd(of: strong) == ts(2.6))
        #expect(s.targetDisparity(of: strong, at: ts(1.5)) == 60)  // the face is turned: the body stands in
    }

    @Test func focusArrivesAtTheDecisionTime() throws {
        var s = try scriptWithFrames([(1, 80, 0...10), (2, 50, 0...10)])
        s.rack = FocusRack(speed: 60, minimumDuration: 0.4, maximumDuration: 0.8)
        let first = FocusDecision(time: ts(1), target: .group(1), kind: .base)
        let second = FocusDecision(time: ts(5), target: .group(2), kind: .base)
        s.add(first)
        s.add(second)
        // |Δd| = 30 px at 60 px/s: a 0.5 s rack ending at 5 s.
        #expect(s.transitionTimeRange(before: second) == ts(4.5)..<ts(5))
        #expect(s.transitionTimeRange(before: first) == nil)
        #expect(s.focusDisparity(at: ts(4.4)) == 80)
        // Halfway in time, 69 % of the way (6p² − 8p³ + 3p⁴ at p = 0.5): the rack leaves briskly.
        #expect(s.focusDisparity(at: ts(4.75)).map { abs($0 - 59.375) < 1e-9 } == true)
        #expect(s.focusDisparity(at: ts(5)) == 50)
        #expect(s.primaryDecision(at: ts(4.6)) == second)
        #expect(s.secondaryDecision(at: ts(4.6)) == first)
        #expect(s.primaryDecision(at: ts(4.4)) == first)
        #expect(s.secondaryDecision(at: ts(4.4)) == nil)
        #expect(s.secondaryDecision(at: ts(5.2)) == nil)
    }

    @Test func rackDurationGrowsWithDistanceWithinBounds() {
        let law = FocusRack()
        #expect(law.duration(for: 3) == 0.33)
        #expect(law.duration(for: 40) == 0.5)
        #expect(law.duration(for: -200) == 0.7)
        #expect(law.duration(for: nil) == 0.7)
    }

    @Test func aRackLeavesBrisklyAndFeathersItsLanding() {
        #expect(FocusRack.ease(0) == 0 && FocusRack.ease(1) == 1)
        // Monotonic, never past the target.
        var last = 0.0
        for k in 1...100 {
            let e = FocusRack.ease(Double(k) / 100)
            #expect(e >= last && e <= 1)
            last = e
        }
        // Zero speed at both ends, fastest a third of the way in; past half the distance by
        // 40 % of the time, within 12 % of it at two thirds.
        let speed = { (p: Double) in (FocusRack.ease(p + 1e-4) - FocusRack.ease(p - 1e-4)) / 2e-4 }
        #expect(speed(1e-4) < 0.01 && speed(1 - 1e-4) < 0.01)
        #expect(speed(1.0 / 3) > speed(0.25) && speed(1.0 / 3) > speed(0.45))
        #expect(FocusRack.ease(0.4) > 0.5)
        #expect(FocusRack.ease(2.0 / 3) > 0.88)
    }

    @Test func queriesFindFramesAndDecisions() throws {
        var s = try scriptWithFrames(until: 2, [(1, 80, 0...2)])
        let a = FocusDecision(time: ts(0.5), target: .group(1), kind: .base)
        let b = FocusDecision(time: ts(1.5), target: .disparity(20), kind: .weakUser)
        s.add(a)
        try s.addUserDecision(b)
        #expect(s.frame(at: ts(0.52), tolerance: ts(0.03))?.time == ts(0.5))
        #expect(s.frame(at: ts(0.55), tolerance: ts(0.01)) == nil)
        #expect(s.frames(in: ts(0.3)...ts(0.6)).map(\.time) == [ts(0.3), ts(0.4), ts(0.5), ts(0.6)])
        #expect(s.decision(at: ts(0.5)) == a)
        #expect(s.decision(at: ts(0.6)) == nil)
        #expect(s.decision(at: ts(1.45), tolerance: ts(0.1)) == b)
        #expect(s.decision(before: ts(1.5)) == a)
        #expect(s.decision(after: ts(0.5)) == b)
        #expect(s.decisions(in: ts(0)...ts(1)) == [a])
    }

    @Test func editsAddAndRemoveUserDecisions() throws {
        var s = CinematicScript()
        let base = FocusDecision(time: ts(1), target: .group(1), kind: .base)
        let weak = FocusDecision(time: ts(2), target: .group(2), kind: .weakUser)
        let strong = FocusDecision(time: ts(3), target: .detection(5), kind: .strongUser)
        s.add(base)
        #expect(throws: CinematicScriptError.notAUserDecision) { try s.addUserDecision(base) }
        try s.addUserDecision(strong)
        try s.addUserDecision(weak)
        #expect(s.decisions == [base, weak, strong])
        try s.removeUserDecision(weak)
        #expect(throws: CinematicScriptError.decisionNotFound(weak)) { try s.removeUserDecision(weak) }
        s.removeAllUserDecisions()
        #expect(s.decisions == [base])
        try s.setFNumber(2.8)
        #expect(s.fNumber == 2.8)
        #expect(throws: CinematicScriptError.fNumberOutOfRange(0.5, CinematicScript.fNumberRange)) {
            try s.setFNumber(0.5)
        }
    }

    @Test func jsonRoundTripKeepsEverything() throws {
        var s = try scriptWithFrames(until: 1, [(1, 80, 0...1)])
        s.add(FocusDecision(time: ts(0.2), target: .group(1), kind: .base))
        try s.addUserDecision(FocusDecision(time: ts(0.5), target: .disparity(12.5), kind: .strongUser))
        try s.addUserDecision(FocusDecision(time: ts(0.7), target: .detection(2), kind: .weakUser))
        try s.setFNumber(2)
        let loaded = try CinematicScript(jsonData: try s.jsonData())
        #expect(loaded == s)
    }

    @Test func unknownVersionIsAClearError() throws {
        var json = try JSONSerialization.jsonObject(with: try CinematicScript().jsonData()) as! [String: Any]
        json["version"] = 99
        let data = try JSONSerialization.data(withJSONObject: json)
        #expect(throws: CinematicScriptError.unsupportedVersion(99)) { try CinematicScript(jsonData: data) }
        #expect("\(CinematicScriptError.unsupportedVersion(99))".contains("version 99"))
        #expect(throws: CinematicScriptError.self) { try CinematicScript(jsonData: Data("{\"version\":1}".utf8)) }
    }
}
