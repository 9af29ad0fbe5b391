// The focus node: the synthetic camera's ground-truth subjects through the node harness (timing
// with and without lookahead, a strong decision holding, commands and their errors) and a
// small graph camera → focus → metadata (the whole story: enter, look away, come back).
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

/// The synthetic camera's ground truth as its node reports it: subject k → face 2k+1 (while
/// facing the camera) and body 2k+2, group k+1.
func groundTruthDetections(_ scene: SyntheticScene, at seconds: Double) -> Detections {
    scene.subjects(at: seconds).flatMap { s -> Detections in
        var out: Detections = []
        if s.facingCamera {
            out.append(
                Detection(id: 2 * s.id + 1, groupID: s.id + 1, type: .humanFace, bounds: s.face, disparity: s.disparity)
            )
        }
        out.append(
            Detection(id: 2 * s.id + 2, groupID: s.id + 1, type: .humanBody, bounds: s.body, disparity: s.disparity))
        return out
    }
}

/// One output of the node: the focus and detections for the frame `time`.
struct FocusOutput {
    var time: Double
    var focus: FocusState
    var detections: Detections
}

/// Runs the node over the two-subject synthetic scene at 15 fps, issuing `commands` (by time).
func runFocusNode(
    parameters: [String: String] = [:], until: Double = 12,
    commands: [(Double, NodeCommand)] = []
) throws -> [FocusOutput] {
    var c = SyntheticScene.Configuration(width: 320, height: 180, fps: 15, seed: 1)
    c.subjectCount = 2
    let scene = SyntheticScene(c)
    var h = try NodeHarness(FocusNode.self, parameters: parameters)
    try h.start()
    let lookahead = Double(parameters["lookahead"]?.dropLast() ?? "0") ?? 0
    // A flat backdrop 3 px away: where focus rests before anyone is there.
    let backdrop = ImagePool().makeImage(width: 32, height: 18, format: .float32)
    for y in 0..<18 { for x in 0..<32 { backdrop.plane(0).row(y, as: Float.self)[x] = 3 } }
    let map = DisparityMap(values: backdrop, referenceWidth: 320, referenceHeight: 180)
    var out: [FocusOutput] = []
    for i in 0..<Int(until * 15) {
        let t = Double(i) / 15
        for (at, command) in commands where abs(at - t) < 1e-9 { _ = try h.command(command) }
        let o = try h.process(
            [\.$detections: groundTruthDetections(scene, at: t), \.$disparity: map],
            at: Timestamp(frame: i, fps: 15))
        if let f = o[\.$focus], let d = o[\.$focusedDetections] {
            out.append(FocusOutput(time: t - lookahead, focus: f, detections: d))
        }
    }
    return out
}

@Suite struct FocusNodeTests {
    struct TimingCase: Sendable, CustomTestStringConvertible {
        var lookahead: String
        /// How long after the decision (first sight + dwell) focus has landed on the first subject.
        var landsAfter: ClosedRange<Double>
        var testDescription: String { "lookahead \(lookahead)" }
    }

    @Test(arguments: [
        TimingCase(lookahead: "0s", landsAfter: 0.32...0.71),
        TimingCase(lookahead: "0.8s", landsAfter: -0.001...0.001),
    ])
    func focusLandsOnTheFirstSubjectAfterTheDwell(_ c: TimingCase) throws {
        let out = try runFocusNode(parameters: ["lookahead": c.lookahead], until: 4)
        let firstSight = try #require(out.first { !$0.detections.isEmpty }).time
        // Nobody holds focus yet: the newcomer's dwell is the short one (none by default), in whole frames.
        let decision = firstSight + (FocusEngineConfiguration().acquireDwell * 15).rounded(.up) / 15
        let focused = try #require(out.first { $0.focus.targetDetectionID != nil })
        #expect(focused.focus.targetDetectionID == 1)  // subject 0's face
        // With a lookahead the rack has landed by the frame the subject is first seen in.
        let landed = try #require(out.first { $0.time >= focused.time && $0.focus.transitionProgress == 1 })
        let d = try #require(landed.detections.first { $0.id == 1 }?.disparity)
        #expect(abs(landed.focus.focusDisparity - d) < 1e-9)
        let after = ((landed.time - decision) * 1000).rounded() / 1000
        #expect(c.landsAfter.contains(after), "landed \(after) s after the decision")
        #expect(out.allSatisfy { $0.focus.fNumber == 4.5 })
        #expect(out.first?.focus.focusDisparity == 3)  // the backdrop, before anyone is there
        #expect(out.first { $0.time < focused.time - 0.01 }.map { abs($0.focus.focusDisparity - 3) < 1e-9 } == true)
    }

    @Test func strongUserDecisionHolds() throws {
        // Strong on subject 1's body at 5 s: it holds while subject 0 is nearer and faces the camera.
        let out = try runFocusNode(commands: [(5, NodeCommand("focus", arguments: ["id": "4", "strong": "true"]))])
        let held = out.filter { $0.time >= 5.8 && $0.detections.contains { $0.groupID == 2 } }
        #expect(held.count > 20)
        for o in held {
            let target = o.detections.first { $0.id == o.focus.targetDetectionID }
            #expect(target?.groupID == 2, "at \(o.time)")
            #expect(target?.focusMode == .strong)
            #expect(o.detections.filter { $0.focusMode != .none }.count == 1)
        }
    }

    @Test func commandsCheckTheirArguments() throws {
        var h = try NodeHarness(FocusNode.self)
        try h.start()
        _ = try h.process([
            \.$detections: [
                Detection(
                    id: 5, type: .humanBody, bounds: NormalizedRect(x: 0.4, y: 0.2, width: 0.2, height: 0.6),
                    disparity: 30)
            ]
        ])
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("focus", arguments: ["id": "9"])) }
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("fixed", arguments: ["point": "1.5,0.2"])) }
        // No disparity input: fixed focus has nothing to measure.
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("fixed", arguments: ["point": "0.5,0.2"])) }
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("aperture", arguments: ["value": "40"])) }
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("zoom")) }
        #expect(try h.command(NodeCommand("focus", arguments: ["id": "5", "strong": "true"])).contains("strong"))
        #expect(try h.command(NodeCommand("aperture", arguments: ["value": "2.8"])) == "aperture f/2.8")
        let o = try h.process(
            [
                \.$detections: [
                    Detection(
                        id: 5, type: .humanBody, bounds: NormalizedRect(x: 0.4, y: 0.2, width: 0.2, height: 0.6),
                        disparity: 30)
                ]
            ],
            at: Timestamp(seconds: 0.1))
        #expect((o[\.$focus])?.fNumber == 2.8)
        #expect((o[\.$focusedDetections])?.first?.focusMode == .strong)
        #expect(try h.command(NodeCommand("auto")) == "automatic focus")
    }

    @Test func fixedStrongFocusKeepsThePlaneAtThePoint() throws {
        // The scene at 10 px but its right quarter at 40 px; a subject at 60 px in front from 1 s.
        let values = ImagePool().makeImage(width: 32, height: 18, format: .float32)
        for y in 0..<18 { for x in 0..<32 { values.plane(0).row(y, as: Float.self)[x] = x < 24 ? 10 : 40 } }
        let map = DisparityMap(values: values, referenceWidth: 320, referenceHeight: 180)
        let subject = Detection(
            id: 2, groupID: 1, type: .humanBody,
            bounds: NormalizedRect(x: 0.3, y: 0.2, width: 0.3, height: 0.7), disparity: 60)
        var h = try NodeHarness(FocusNode.self)
        try h.start()
        var focus: [Double] = []
        for i in 0..<90 {
            if i == 5 {
                #expect(
                    try h.command(NodeCommand("fixed", arguments: ["point": "0.9,0.5", "strong": "true"])).contains(
                        "40"))
            }
            if i == 60 { _ = try h.command(NodeCommand("auto")) }
            let detections: Detections = i >= 30 ? [subject] : []
            let o = try h.process([\.$detections: detections, \.$disparity: map], at: Timestamp(frame: i, fps: 30))
            focus.append((o[\.$focus])?.focusDisparity ?? -1)
        }
        #expect(focus[0] == 10)  // the centre of the frame, before any decision
        #expect(focus[20] == 40 && focus[59] == 40)  // the subject in front from frame 30 changes nothing
        #expect(focus[89] == 60)  // automatic focus took the subject
    }

    @Test func graphFocusesEntersLooksAwayAndComesBack() throws {
        let path = temporaryFolder("focus").appendingPathComponent("f.jsonl").path
        let graph = try Graph.parse(
            """
            nodes:
              camera: { kind: synthetic, size: 320x180, live: false, duration: 12s, fps: 15, subjects: 2 }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity, lookahead: 0.5s }
              meta: { kind: metadata, detections: focus.detections, focus: focus.focus, path: "\(path)" }
            """, registry: .standard())
        let summary = try GraphRunner(graph: graph).run()
        #expect(summary.failures.isEmpty)
        struct Line: Decodable { var time: Int64; var detections: [Detection]; var focus: FocusState }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count == 180)  // the frames of the last 0.5 s are flushed at the end
        // Focus rests on the scene (the disparity at the centre) before anyone is there.
        #expect(lines[0].focus.targetDetectionID == nil && lines[0].focus.focusDisparity > 0)
        // The story of the subjects in focus: subject 0, the newcomer, back to subject 0 while
        // the newcomer looks away, and the newcomer again once it faces the camera. Within a
        // subject, focus is on its face whenever the face is in view.
        var story: [Int] = []
        for l in lines {
            guard let id = l.focus.targetDetectionID, let target = l.detections.first(where: { $0.id == id }) else { continue }
            let face = l.detections.first { $0.groupID == target.groupID && $0.type == .humanFace }
            #expect(face == nil || face?.id == id, "at \(l.time): the body of a subject whose face is in view")
            if story.last != target.groupID { story.append(target.groupID) }
        }
        #expect(Array(story.prefix(3)) == [1, 2, 1], "\(story)")
        #expect(story.last == 2, "\(story)")
        // While the newcomer's back is turned (its body 4 without its face 3) and subject 0 is in
        // view, focus is settled on subject 0's face.
        let turned = lines.filter { l in
            l.focus.transitionProgress == 1 && l.detections.contains { $0.id == 4 }
                && !l.detections.contains { $0.id == 3 } && l.detections.contains { $0.id == 1 }
        }
        #expect(turned.count > 10)
        #expect(turned.allSatisfy { $0.focus.targetDetectionID == 1 })
        // Smooth: no step larger than the fastest rack's peak speed allows (with a lookahead a
        // rack may be squeezed to three quarters of the shortest to land on time).
        let ds = lines.flatMap { $0.detections.compactMap(\.disparity) } + lines.map(\.focus.focusDisparity)
        let law = FocusRack()
        let bound = 16.0 / 9 * (ds.max()! - ds.min()!) / (0.75 * law.minimumDuration) / 15
        let steps = zip(lines, lines.dropFirst()).map { abs($1.focus.focusDisparity - $0.focus.focusDisparity) }
        #expect(steps.max()! <= bound, "max step \(steps.max()!) > \(bound)")
    }
}
