// The reference UI's focus gestures: the tap / long-press table as a pure function, then
// scenarios of events (subjects, taps and presses at times) run through the engine with
// tracking at a point on a small disparity map.
import CineMedia
import CineVision
import Testing

/// A body rectangle at x…x+0.2 (y 0.2…0.9) with a focus mode.
func rect(_ id: Int, x: Double, _ mode: FocusMode, width: Double = 0.2, height: Double = 0.7) -> Detection {
    Detection(
        id: id, type: .humanBody, bounds: NormalizedRect(x: x, y: 0.2, width: width, height: height),
        disparity: 40, focusMode: mode)
}

/// A 64×36 disparity map: the back wall at 10 px, a vase at 30 px over x 0.75…0.85, y 0.55…0.85.
func vaseMap() -> DisparityMap {
    let values = ImagePool().makeImage(width: 64, height: 36, format: .float32)
    for y in 0..<36 {
        for x in 0..<64 {
            let inVase = (48..<54).contains(x) && (20..<31).contains(y)
            values.plane(0).row(y, as: Float.self)[x] = inVase ? 30 : 10
        }
    }
    return DisparityMap(values: values, referenceWidth: 640, referenceHeight: 360)
}

@Suite struct FocusInteractionTests {
    struct GestureCase: Sendable, CustomTestStringConvertible {
        var name: String
        var gesture: FocusGesture
        var point: NormalizedPoint
        var detections: Detections
        var action: FocusAction
        var testDescription: String { name }
    }

    static let p = NormalizedPoint(x: 0.3, y: 0.5)

    static let gestureCases: [GestureCase] = [
        GestureCase(
            name: "tapOnARectangleNotInFocusGivesWeakFocus", gesture: .tap, point: p,
            detections: [rect(1, x: 0.2, .none), rect(2, x: 0.6, .weak)], action: .trackDetection(id: 1, strong: false)),
        GestureCase(
            name: "tapOnTheWeaklyFocusedOneMakesItStrong", gesture: .tap, point: p,
            detections: [rect(1, x: 0.2, .weak), rect(2, x: 0.6, .none)], action: .trackDetection(id: 1, strong: true)),
        GestureCase(
            name: "tapOnTheStronglyFocusedOneKeepsIt", gesture: .tap, point: p,
            detections: [rect(1, x: 0.2, .strong)], action: .keep(id: 1)),
        GestureCase(
            name: "tapWhereThereIsNoRectangleTracksThePoint", gesture: .tap, point: NormalizedPoint(x: 0.9, y: 0.1),
            detections: [rect(1, x: 0.2, .weak)], action: .trackPoint(NormalizedPoint(x: 0.9, y: 0.1))),
        GestureCase(
            name: "tapOnAnEmptyFrameTracksThePoint", gesture: .tap, point: p, detections: [],
            action: .trackPoint(p)),
        GestureCase(
            name: "tapOnAFaceInsideItsBodyPicksTheFace", gesture: .tap, point: NormalizedPoint(x: 0.3, y: 0.3),
            detections: [rect(2, x: 0.2, .weak), rect(1, x: 0.25, .none, width: 0.1, height: 0.15)],
            action: .trackDetection(id: 1, strong: false)),
        GestureCase(
            name: "tapOnTheBodyOfASubjectWhoseFaceIsWeaklyFocusedMakesTheFaceStrong",
            gesture: .tap, point: NormalizedPoint(x: 0.3, y: 0.8),
            detections: [
                Detection(
                    id: 2, groupID: 1, type: .humanBody, bounds: NormalizedRect(x: 0.2, y: 0.2, width: 0.2, height: 0.7)
                ),
                Detection(
                    id: 1, groupID: 1, type: .humanFace,
                    bounds: NormalizedRect(x: 0.25, y: 0.2, width: 0.1, height: 0.15),
                    focusMode: .weak),
            ],
            action: .trackDetection(id: 1, strong: true)),
        GestureCase(
            name: "longPressOnARectangleIsStrongFixedFocus", gesture: .longPress, point: p,
            detections: [rect(1, x: 0.2, .weak)], action: .fixedPoint(p, strong: true)),
        GestureCase(
            name: "longPressOnEmptySpaceIsStrongFixedFocus", gesture: .longPress, point: NormalizedPoint(x: 0, y: 1),
            detections: [], action: .fixedPoint(NormalizedPoint(x: 0, y: 1), strong: true)),
    ]

    @Test(arguments: gestureCases) func gestures(_ c: GestureCase) throws {
        #expect(try FocusInteraction().action(for: c.gesture, at: c.point, on: c.detections) == c.action)
    }

    @Test(arguments: [(0.0, FocusGesture.tap), (0.29, .tap), (0.3, .longPress), (2, .longPress)])
    func aPressOfAtLeastThreeTenthsIsALongPress(_ seconds: Double, _ gesture: FocusGesture) {
        #expect(FocusGesture(heldFor: seconds) == gesture)
    }

    @Test(arguments: [(1.5, 0.2), (-0.1, 0.5), (0.5, 1.01), (Double.nan, 0.5)])
    func pointsOutsideTheFrameAreClearErrors(_ x: Double, _ y: Double) {
        do {
            _ = try FocusInteraction().action(for: .tap, at: NormalizedPoint(x: x, y: y), on: [])
            Issue.record("no error for \(x),\(y)")
        } catch {
            #expect(error is FocusInteractionError)
            #expect("\(error)".contains("outside the frame") && "\(error)".contains("0...1"))
        }
    }

    @Test(arguments: [("0.5,0.25", NormalizedPoint(x: 0.5, y: 0.25)), (" 1 , 0 ", NormalizedPoint(x: 1, y: 0))])
    func pointsParse(_ text: String, _ point: NormalizedPoint) {
        #expect(NormalizedPoint(parsing: text) == point)
    }

    @Test(arguments: ["", "0.5", "0.5,", "a,b", "0.1,0.2,0.3"]) func badPointTextDoesNotParse(_ text: String) {
        #expect(NormalizedPoint(parsing: text) == nil)
    }

    @Test func salientObjectAtAPointGetsANewIDAndIsFollowed() throws {
        var tracker = SalientObjectTracker()
        let map = vaseMap()
        #expect(tracker.start(at: NormalizedPoint(x: 0.05, y: 0.1), disparity: map, luma: nil) == nil)  // the wall
        let started = tracker.start(at: NormalizedPoint(x: 0.8, y: 0.7), disparity: map, luma: nil)
        let vase = try #require(started)
        #expect(vase.id == SalientObjectTracker.firstID && vase.type == .salientObject && vase.groupID == vase.id)
        #expect(abs((vase.disparity ?? 0) - 30) < 1e-9)
        #expect(abs(vase.bounds.x - 0.75) < 0.02 && abs(vase.bounds.width - 0.094) < 0.02)
        let next = tracker.update(disparity: map, luma: nil)
        #expect(next.map(\.id) == [vase.id])
    }

    @Test func largeMapsAreSampledDownWithTheSameResult() throws {
        // The vase map at 1280×720 (sampled down by 3 to 426 wide) finds the vase where the 64×36 one does.
        let values = ImagePool().makeImage(width: 1280, height: 720, format: .float32)
        for y in 0..<720 {
            for x in 0..<1280 {
                values.plane(0).row(y, as: Float.self)[x] = (960..<1080).contains(x) && (400..<620).contains(y) ? 30 : 10
            }
        }
        var small = SalientObjectTracker(), large = SalientObjectTracker()
        let p = NormalizedPoint(x: 0.8, y: 0.7)
        let a = small.start(at: p, disparity: vaseMap(), luma: nil)
        let b = large.start(
            at: p, disparity: DisparityMap(values: values, referenceWidth: 1280, referenceHeight: 720), luma: nil)
        let sa = try #require(a), sb = try #require(b)
        #expect(abs(sa.bounds.x - sb.bounds.x) < 0.02 && abs(sa.bounds.width - sb.bounds.width) < 0.02)
        #expect(sb.disparity == 30)
    }

    // MARK: - Scenarios: gestures on a running engine

    /// What the focus should be at a time.
    enum Expect: Sendable {
        /// On subject `group` (any of its detections), with that focus mode.
        case subject(Int, FocusMode)
        /// On the salient object found at a point, with that focus mode.
        case salient(FocusMode)
        /// On a fixed plane at this disparity, no detection in focus.
        case plane(Double)
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var gestures: [(Double, FocusGesture, NormalizedPoint)]
        var expect: [(Double, Expect)]
        var testDescription: String { name }
    }

    /// Subject 1 (near, from 0 s) and subject 2 (entering at 2 s, takes focus at 2.5 s, looks
    /// away 5…7 s); the vase at 30 px on a 10 px wall.
    static let subjects = FocusEngineTests.crossing
    static let a = NormalizedPoint(x: 0.3, y: 0.7)  // subject 1's body
    static let vase = NormalizedPoint(x: 0.82, y: 0.7)  // right of subject 2's body (0.6…0.8)
    static let wall = NormalizedPoint(x: 0.05, y: 0.1)

    static let scenarios: [Scenario] = [
        Scenario(
            name: "tapOnTheUnfocusedSubjectGivesItWeakFocusUntilTheNextBaseDecision",
            gestures: [(4, .tap, a)],
            expect: [(3.9, .subject(2, .weak)), (4.9, .subject(1, .weak)), (9, .subject(2, .weak))]),
        Scenario(
            name: "secondTapMakesItStrongAndItHolds",
            gestures: [(4, .tap, a), (4.5, .tap, a)],
            expect: [(4.4, .subject(1, .weak)), (5.5, .subject(1, .strong)), (9, .subject(1, .strong))]),
        Scenario(
            name: "thirdTapKeepsStrongFocus",
            gestures: [(4, .tap, a), (4.5, .tap, a), (5, .tap, a)],
            expect: [(9, .subject(1, .strong))]),
        Scenario(
            name: "tapOnEmptySpaceTracksTheObjectThereWeakly",
            gestures: [(3.5, .tap, vase)],
            expect: [(3.4, .subject(2, .weak)), (4.6, .salient(.weak)), (9, .subject(2, .weak))]),
        Scenario(
            name: "longPressLocksFocusOnThePlane",
            gestures: [(3.5, .longPress, wall)],
            expect: [(4.6, .plane(10)), (6, .plane(10)), (9, .plane(10))]),
        Scenario(
            name: "tapAfterALongPressTakesOver",
            gestures: [(3, .longPress, wall), (6, .tap, a)],
            expect: [(5, .plane(10)), (6.9, .subject(1, .weak))]),
    ]

    /// Runs a scenario's subjects and gestures through an engine at 30 fps for 11 s.
    static func run(_ c: Scenario) throws -> (outputs: [FocusEngineOutput], script: CinematicScript) {
        let map = vaseMap()
        var engine = FocusEngine()
        var salient = SalientObjectTracker()
        var outputs: [FocusEngineOutput] = []
        for i in 0..<(11 * 30) {
            let t = Double(i) / 30
            for (at, gesture, point) in c.gestures where abs(at - t) < 1e-9 {
                switch try FocusInteraction().action(for: gesture, at: point, on: engine.currentDetections) {
                case .trackDetection(let id, let strong): try engine.focus(onDetection: id, strong: strong)
                case .keep: break
                case .fixedPoint(let p, let strong):
                    engine.focus(atDisparity: Double(map.disparity(atNormalized: p.x, p.y)!), strong: strong)
                case .trackPoint(let p):
                    let started = salient.start(at: p, disparity: map, luma: nil)
                    let found = try #require(started, "\(c.name)")
                    engine.track(found, strong: false)
                }
            }
            let dets = Self.subjects.flatMap { $0.detections(at: t) } + salient.update(disparity: map, luma: nil)
            outputs += engine.ingest(time: Timestamp(frame: i, fps: 30), detections: dets, sceneDisparity: 10)
        }
        return (outputs, engine.script)
    }

    @Test(arguments: scenarios) func gestureScenarios(_ c: Scenario) throws {
        let outputs = try Self.run(c).outputs
        for (t, expect) in c.expect {
            let o = outputs.at(t)
            let focused = o.detections.first { $0.id == o.focus.targetDetectionID }
            switch expect {
            case .subject(let g, let mode):
                #expect(
                    focused?.groupID == g && focused?.focusMode == mode,
                    "\(c.name) at \(t)s: \(String(describing: focused))")
                #expect(o.focus.focusDisparity == focused?.disparity, "\(c.name) at \(t)s: landed")
            case .salient(let mode):
                #expect(focused?.type == .salientObject && focused?.focusMode == mode, "\(c.name) at \(t)s")
                #expect(abs(o.focus.focusDisparity - 30) < 1e-9, "\(c.name) at \(t)s")
            case .plane(let d):
                #expect(focused == nil && o.focus.focusDisparity == d, "\(c.name) at \(t)s")
            }
        }
    }

    @Test func sameGesturesGiveTheSameScript() throws {
        let c = Scenario(
            name: "all",
            gestures: [(3, .tap, Self.vase), (4, .tap, Self.a), (4.5, .tap, Self.a), (8, .longPress, Self.wall)],
            expect: [])
        let (outA, a) = try Self.run(c)
        let (outB, b) = try Self.run(c)
        #expect(a.decisions.filter { $0.kind.isUser }.count == 4, "\(a.decisions)")
        #expect(try a.jsonData() == b.jsonData())
        // The engine's script (frames recorded) loads back: every decision's track is in its frames,
        // the salient object's included.
        #expect(try CinematicScript(jsonData: a.jsonData()) == a)
        #expect(a.decisions.contains { $0.target == .detection(SalientObjectTracker.firstID) })
        #expect(outA == outB)
    }
}
