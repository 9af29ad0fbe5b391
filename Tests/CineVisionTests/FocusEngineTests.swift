// The focus engine, driven by small scripts of events: subjects entering, turning away and
// back, user decisions weak and strong, racks with and without lookahead, determinism.
import CineMedia
import CineVision
import Testing

/// One subject of a scenario: present over `present`, facing the camera except over `away`.
struct ScenarioSubject {
    var group: Int
    var disparity: Double
    var present: Range<Double>
    var away: Range<Double>? = nil
    var x = 0.4
    var width = 0.2

    func detections(at t: Double) -> Detections {
        guard present.contains(t) else { return [] }
        var out: Detections = []
        if !(away?.contains(t) ?? false) {
            out.append(
                Detection(
                    id: 2 * group - 1, groupID: group, type: .humanFace,
                    bounds: NormalizedRect(x: x + width * 0.3, y: 0.2, width: width * 0.4, height: 0.12),
                    disparity: disparity))
        }
        out.append(
            Detection(
                id: 2 * group, groupID: group, type: .humanBody,
                bounds: NormalizedRect(x: x, y: 0.2, width: width, height: 0.7), disparity: disparity))
        return out
    }
}

/// Runs `subjects` through an engine at `fps` until `until`, calling `commands` before each frame.
func runEngine(
    _ subjects: [ScenarioSubject], until: Double, fps: Double = 30,
    configuration: FocusEngineConfiguration = FocusEngineConfiguration(),
    commands: (Double, inout FocusEngine) throws -> Void = { _, _ in }
) throws
    -> (outputs: [FocusEngineOutput], engine: FocusEngine)
{
    var engine = FocusEngine(configuration: configuration)
    var outputs: [FocusEngineOutput] = []
    for i in 0..<Int(until * fps) {
        let t = Double(i) / fps
        try commands(t, &engine)
        let dets = subjects.flatMap { $0.detections(at: t) }
        outputs += engine.ingest(time: Timestamp(frame: i, fps: fps), detections: dets, sceneDisparity: 10)
    }
    outputs += engine.flush()
    return (outputs, engine)
}

extension [FocusEngineOutput] {
    /// The output at `seconds` (nearest frame).
    func at(_ seconds: Double) -> FocusEngineOutput {
        self.min { abs($0.time.seconds - seconds) < abs($1.time.seconds - seconds) }!
    }
    /// The group in focus at `seconds`, found through the focused detection.
    func group(at seconds: Double) -> Int? {
        let o = at(seconds)
        return o.detections.first { $0.id == o.focus.targetDetectionID }?.groupID
    }
}

@Suite struct FocusEngineTests {
    @Test func subjectEntersAndFocusRacksAfterTheDwell() throws {
        var config = FocusEngineConfiguration()
        config.acquireDwell = 0.1
        let (out, engine) = try runEngine([ScenarioSubject(group: 1, disparity: 40, present: 1..<10)], until: 4,
                                          configuration: config)
        #expect(out.at(0.5).focus.focusDisparity == 10)  // nothing yet: the scene
        #expect(out.at(1.05).focus.focusDisparity == 10)  // within the dwell (nobody holds focus: the short one, 0.1 s)
        let base = engine.script.decisions.first
        #expect(base?.kind == .base && base?.target == .group(1))
        #expect(base.map { abs($0.time.seconds - 1.1) < 0.04 } == true)
        #expect(out.at(1.3).focus.transitionProgress < 1)
        #expect(out.at(2.4).focus.focusDisparity == 40)  // landed: 0.375 s rack for 30 px
        #expect(out.at(2.4).focus.targetDetectionID == 1)
        #expect(out.at(2.4).detections.first { $0.id == 1 }?.focusMode == .weak)
    }

    @Test func byDefaultSomeoneWalkingIntoAnEmptyFrameGetsFocusAtFirstSight() throws {
        let (out, engine) = try runEngine([ScenarioSubject(group: 1, disparity: 40, present: 1..<10)], until: 4)
        #expect(out.at(0.9).focus.focusDisparity == 10)
        let base = try #require(engine.script.decisions.first)
        #expect(base.target == .group(1) && abs(base.time.seconds - 1) < 0.02)
        #expect(out.at(1.1).focus.transitionProgress < 1 && out.at(1.1).focus.focusDisparity > 10)
        #expect(out.at(1.4).focus.focusDisparity == 40)  // 30 px at 80 px/s: landed 0.375 s after first sight
    }

    /// A stabilizer after the decision crops 12 % away: a newcomer standing mostly in that margin
    /// (its face 0.96…1.04 of the frame's width) is not in the take, and does not pull focus off
    /// the subject the take shows; without the crop it does.
    @Test(arguments: [0.0, 0.12]) func subjectsOutsideWhatTheTakeKeepsAreNotChosen(_ crop: Double) throws {
        var config = FocusEngineConfiguration()
        config.crop = crop
        let subjects = [
            ScenarioSubject(group: 1, disparity: 40, present: 0..<8, x: 0.4),
            ScenarioSubject(group: 2, disparity: 60, present: 2..<8, x: 0.9),
        ]
        let (_, engine) = try runEngine(subjects, until: 8, configuration: config)
        let targets = engine.script.decisions.filter { $0.kind == .base }.map(\.target)
        if crop == 0 {
            #expect(targets.contains(.group(2)), "\(targets)")
        } else {
            #expect(targets == [.group(1)], "\(targets)")
        }
        #expect(FocusEngine.isShown(NormalizedRect(x: 0.9, y: 0.2, width: 0.2, height: 0.7), crop: 0.12) == false)
        #expect(FocusEngine.isShown(NormalizedRect(x: 0.8, y: 0.2, width: 0.2, height: 0.7), crop: 0.12) == true)
    }

    /// The subject in focus leaves while another walks in: focus waits for the newcomer rather
    /// than racking to the scene and back; with nobody coming, it rests on the scene.
    @Test(arguments: [true, false]) func whenTheSubjectLeavesFocusWaitsForSomeoneWalkingIn(_ someoneComes: Bool) throws {
        var subjects = [ScenarioSubject(group: 1, disparity: 40, present: 0..<3)]
        if someoneComes { subjects.append(ScenarioSubject(group: 2, disparity: 30, present: 3.4..<8)) }
        let (out, engine) = try runEngine(subjects, until: 6)
        let targets = engine.script.decisions.filter { $0.kind == .base }.map(\.target)
        if someoneComes {
            #expect(targets == [.group(1), .group(2)], "\(targets)")
            // Forgotten at 3.5 s; the newcomer, seen since 3.4 s, qualifies at once (nobody holds focus).
            #expect(engine.script.decisions.last.map { abs($0.time.seconds - 3.5) < 0.04 } == true)
            #expect(out.at(5).focus.focusDisparity == 30)
            #expect(out.filter { $0.time.seconds > 3 && $0.time.seconds < 5 }.allSatisfy { $0.focus.focusDisparity >= 30 })
        } else {
            #expect(targets == [.group(1), .disparity(10)], "\(targets)")
            // Forgotten at 3.5 s, held 0.5 s on an empty frame, then racked to the scene.
            #expect(engine.script.decisions.last.map { abs($0.time.seconds - 4.0) < 0.04 } == true)
            #expect(out.at(3.9).focus.focusDisparity == 40)
            #expect(out.at(5).focus.focusDisparity == 10)
        }
    }

    /// A near subject A, a newcomer B further back that turns away from 5 s to 7 s.
    static let crossing = [
        ScenarioSubject(group: 1, disparity: 60, present: 0..<12, x: 0.2),
        ScenarioSubject(group: 2, disparity: 40, present: 2..<12, away: 5..<7, x: 0.6),
    ]

    @Test func lookingAwayMovesFocusAndFacingAgainBringsItBack() throws {
        let (out, _) = try runEngine(Self.crossing, until: 11)
        let table: [(Double, Int?)] = [(1.5, 1), (4, 2), (6.5, 1), (9, 2)]
        for (t, g) in table { #expect(out.group(at: t) == g, "at \(t)s") }
    }

    @Test func focusNeverFlickers() throws {
        let (out, engine) = try runEngine(Self.crossing, until: 11)
        let base = engine.script.decisions.filter { $0.kind == .base }
        for (a, b) in zip(base, base.dropFirst()) { #expect((b.time - a.time).seconds >= 0.99) }
        // Smooth: no frame-to-frame step above the rack's peak speed (1.5·Δd per 0.5 s rack, 30 fps).
        let bound: Double = 1.5 * 50 / 0.4 / 30
        let steps = zip(out, out.dropFirst()).map { abs($1.focus.focusDisparity - $0.focus.focusDisparity) }
        #expect(steps.max()! <= bound + 1e-9)
    }

    @Test func focusRacksBackToTheSceneWhenTheOnlySubjectLeaves() throws {
        let (out, engine) = try runEngine([ScenarioSubject(group: 1, disparity: 40, present: 1..<5)], until: 8)
        #expect(out.at(4.5).focus.focusDisparity == 40)
        // Forgotten 0.5 s after leaving, held 0.5 s more on the empty frame, then a rack (not a
        // jump) to the scene's plane.
        let scene = engine.script.decisions.last
        #expect(scene?.kind == .base && scene?.target == .disparity(10))
        #expect(scene.map { abs($0.time.seconds - 6.0) < 0.05 } == true)
        #expect(out.at(5.7).focus.focusDisparity == 40)  // held while the subject may come back
        #expect(out.at(7.0).focus.focusDisparity == 10)
        let steps = zip(out, out.dropFirst()).map { abs($1.focus.focusDisparity - $0.focus.focusDisparity) }
        #expect(steps.max()! < 30.0 / 4)
    }

    @Test func aJumpInTheSubjectsMeasuredDisparityIsFollowedAtTheFollowSpeed() throws {
        // The subject's box slips onto the wall (40 → 8 px) for 0.3 s, then reads 0 (invalid).
        var engine = FocusEngine()
        var out: [FocusEngineOutput] = []
        for i in 0..<150 {
            let t = Double(i) / 30
            let d: Double = t < 3 ? 40 : (t < 3.3 ? 8 : 0)
            let face = Detection(id: 1, groupID: 1, type: .humanFace,
                                 bounds: NormalizedRect(x: 0.4, y: 0.2, width: 0.1, height: 0.12), disparity: d)
            out += engine.ingest(time: Timestamp(frame: i, fps: 30), detections: [face], sceneDisparity: 10)
        }
        #expect(out.at(2.9).focus.focusDisparity == 40)
        let steps = zip(out, out.dropFirst()).filter { $0.0.time.seconds >= 3 }
            .map { abs($1.focus.focusDisparity - $0.focus.focusDisparity) }
        #expect(steps.max()! <= 120.0 / 30 + 1e-6)  // at most followSpeed per frame
        // 0.3 s at 4 px per frame moves it 36 → ... then 0 px counts as unmeasured: focus holds.
        #expect(out.at(3.4).focus.focusDisparity > 8 - 1e-9)
        #expect(out.at(4.9).focus.focusDisparity == out.at(3.4).focus.focusDisparity)
    }

    @Test func strongDecisionHoldsWhileAnotherSubjectBecomesMoreProminent() throws {
        let (out, engine) = try runEngine(Self.crossing, until: 11) { t, e in
            if abs(t - 1) < 1e-9 { try e.focus(onDetection: 2, strong: true) }
        }
        // Strong on A's body from 1 s: B's entrance and A's prominence changes never move it.
        for t in [1.6, 4.0, 6.5, 9.0] { #expect(out.group(at: t) == 1, "at \(t)s") }
        #expect(out.at(4).detections.first { $0.id == 2 }?.focusMode == .strong)
        #expect(engine.script.decisions.contains { $0.kind == .base && $0.target == .group(2) })
    }

    @Test func weakDecisionYieldsToTheNextBaseDecision() throws {
        let (out, _) = try runEngine(Self.crossing, until: 11) { t, e in
            if abs(t - 3) < 1e-9 { try e.focus(onDetection: 2, strong: false) }  // A, while B is new
        }
        #expect(out.group(at: 3.9) == 1)
        #expect(out.at(3.9).detections.first { $0.id == 2 }?.focusMode == .weak)
        #expect(out.group(at: 6.5) == 1)  // B looked away: base goes to A anyway
        #expect(out.group(at: 9) == 2)  // B faced again: a base decision, the weak one yields
    }

    @Test func strongDecisionEndsWithItsTrackAndBaseResumes() throws {
        let subjects = [
            ScenarioSubject(group: 1, disparity: 60, present: 0..<10, x: 0.2),
            ScenarioSubject(group: 2, disparity: 30, present: 0..<4, x: 0.6),
        ]
        let (out, _) = try runEngine(subjects, until: 8) { t, e in
            if abs(t - 2) < 1e-9 { try e.focus(onDetection: 3, strong: true) }
        }
        #expect(out.group(at: 1.8) == 1)
        #expect(out.group(at: 3.5) == 2)
        #expect(out.group(at: 5) == 1)
    }

    @Test func fixedFocusStrongIgnoresTheForeground() throws {
        let subjects = [ScenarioSubject(group: 1, disparity: 60, present: 2..<8)]
        let (out, _) = try runEngine(subjects, until: 8) { t, e in
            if abs(t - 1) < 1e-9 { e.focus(atDisparity: 20, strong: true) }
        }
        for t in [3.0, 5.0, 7.5] {
            #expect(out.at(t).focus.focusDisparity == 20)
            #expect(out.at(t).focus.targetDetectionID == nil)
        }
    }

    @Test func resumeAutomaticRemovesUserDecisions() throws {
        let (out, engine) = try runEngine(Self.crossing, until: 6) { t, e in
            if abs(t - 1) < 1e-9 { e.focus(atDisparity: 20, strong: true) }
            if abs(t - 3) < 1e-9 { e.resumeAutomatic() }
        }
        #expect(out.at(2).focus.focusDisparity == 20)
        #expect(out.group(at: 4) == 2)
        #expect(!engine.script.decisions.contains { $0.kind.isUser })
    }

    @Test func unknownDetectionIsAClearError() throws {
        var e = FocusEngine()
        _ = e.ingest(time: .zero, detections: [])
        #expect(throws: CinematicScriptError.unknownDetection(7)) { try e.focus(onDetection: 7, strong: false) }
        #expect(throws: CinematicScriptError.self) { try e.setFNumber(40) }
    }

    struct TimingCase: Sendable, CustomTestStringConvertible {
        var lookahead: Double
        /// Where the rack to B (decided at 2.5 s, Δd 20 px → the shortest rack, 0.33 s) starts and lands.
        var start: Double
        var land: Double
        var testDescription: String { "lookahead \(lookahead)s" }
    }

    @Test(arguments: [
        TimingCase(lookahead: 0, start: 2.5, land: 2.84),
        TimingCase(lookahead: 0.5, start: 2.17, land: 2.5),
        TimingCase(lookahead: 1, start: 2.17, land: 2.5),
    ])
    func racksLandAtTheDecisionTimeWithLookahead(_ c: TimingCase) throws {
        var config = FocusEngineConfiguration()
        config.lookahead = c.lookahead
        let subjects = [
            ScenarioSubject(group: 1, disparity: 60, present: 0..<6, x: 0.2),
            ScenarioSubject(group: 2, disparity: 40, present: 2..<6, x: 0.6),
        ]
        let (out, engine) = try runEngine(subjects, until: 4, configuration: config)
        let decision = engine.script.decisions.last { $0.target == .group(2) }
        #expect(decision.map { abs($0.time.seconds - 2.5) < 0.02 } == true)
        #expect(out.count == 120)  // every frame comes out once, in order
        #expect(out.map(\.time) == out.map(\.time).sorted())
        let moving = out.filter { $0.focus.transitionProgress < 1 && $0.time.seconds > 2 }
        #expect(abs((moving.first?.time.seconds ?? 0) - c.start) < 0.04, "starts \(moving.first?.time.seconds ?? -1)")
        #expect(abs(out.at(c.start - 0.04).focus.focusDisparity - 60) < 1e-9)
        #expect(abs(out.at(c.land).focus.focusDisparity - 40) < 1e-9)
        #expect(abs(out.at(c.land - 0.1).focus.focusDisparity - 40) > 0.5)
    }

    @Test func sameInputGivesTheSameScript() throws {
        let a = try runEngine(Self.crossing, until: 11).engine.script
        let b = try runEngine(Self.crossing, until: 11).engine.script
        #expect(a == b)
        #expect(try a.jsonData() == b.jsonData())
    }

    @Test func engineScriptAgreesWithTheRules() throws {
        let (out, engine) = try runEngine(Self.crossing, until: 11)
        let effective = engine.script.effectiveDecisions()
        for o in out where o.focus.transitionProgress >= 1 && o.time.seconds > 1.5 {
            let inForce = effective.last { $0.time <= o.time }?.decision.target
            let group = o.detections.first { $0.id == o.focus.targetDetectionID }?.groupID
            #expect(inForce == group.map { .group($0) }, "at \(o.time)")
        }
    }

    @Test func engineAndScriptApplyTheSameRulesToUserDecisions() throws {
        let subjects = Self.crossing + [ScenarioSubject(group: 3, disparity: 25, present: 0..<8, x: 0.8)]
        let (out, engine) = try runEngine(subjects, until: 11) { t, e in
            if abs(t - 3) < 1e-9 { try e.focus(onDetection: 6, strong: true) }  // group 3 until 4.5 s
            if abs(t - 4.5) < 1e-9 { try e.focus(onDetection: 2, strong: false) }  // until the next base decision
            if abs(t - 8.5) < 1e-9 { try e.focus(onDetection: 3, strong: true) }  // group 2 to the end
        }
        let script = engine.script
        #expect(script.decisions.filter { $0.kind.isUser }.count == 3)
        let effective = script.effectiveDecisions()
        var checked = 0
        for o in out where o.focus.transitionProgress >= 1 && o.time.seconds > 1.5 {
            // A command lands between frames: the frame at its time was already out (no lookahead).
            guard let inForce = effective.last(where: { $0.time < o.time })?.decision else { continue }
            let expected = inForce.target.locate(in: o.detections)?.groupID
            let focused = o.detections.first { $0.id == o.focus.targetDetectionID }?.groupID
            #expect(expected == focused, "at \(o.time): \(inForce)")
            checked += 1
        }
        #expect(checked > 200)
        #expect(out.group(at: 4) == 3 && out.group(at: 5) == 1 && out.group(at: 10) == 2)
        #expect(out.at(10).detections.first { $0.id == 3 }?.focusMode == .strong)
    }
}
