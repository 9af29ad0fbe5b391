// The showcase: the synthetic camera's cup raised toward the lens at seeded times, the finder
// that notices it in the exact disparity map (and not at rest, nor a person passing in front),
// and the focus engine racking to it and back to its holder.
import CineMedia
import CineVision
import Foundation
import Testing

@Suite struct ShowcaseTests {
    static func scene() -> SyntheticScene {
        var c = SyntheticScene.Configuration(width: 640, height: 360, seed: 2, subjectCount: 2)
        c.talk = true
        c.showcase = true
        return SyntheticScene(c)
    }

    /// The holder's face and the exact map at `t`.
    static func frame(_ scene: SyntheticScene, at t: Double) -> (faces: [Detection], map: DisparityMap) {
        let k = Int((t * 30).rounded())
        let l = Image(width: 640, height: 360, format: .i420), r = Image(width: 640, height: 360, format: .i420)
        let truth = Image(width: 640, height: 360, format: .float32)
        scene.render(frame: k, left: l, right: r, groundTruth: truth)
        let faces = scene.subjects(at: scene.time(ofFrame: k)).map {
            Detection(id: 2 * $0.id + 1, groupID: $0.id + 1, type: .humanFace, bounds: $0.face, disparity: $0.disparity)
        }
        return (faces, DisparityMap(values: truth, referenceWidth: 640, referenceHeight: 360))
    }

    @Test func theCupIsShownAtSeededTimesAndFoundOnlyWhenRaised() throws {
        let scene = Self.scene()
        let showings = try #require(scene.showcase?.showings)
        #expect(showings.count >= 2, "a 20 s scene shows the cup more than once")
        let first = showings[0]
        // Held up: in front of its holder's face and 70 cm nearer.
        let up = first.start + ShowcaseScript.riseTime + 0.3
        let cup = try #require(scene.props(at: up).first { $0.kind == .cup })
        let holder = try #require(scene.subjects(at: up).first { $0.id == 0 })
        #expect(ObjectTracker.iou(cup.bounds, holder.face) > 0.1, "\(cup.bounds) \(holder.face)")
        #expect(cup.disparity > 1.5 * holder.disparity)
        let (faces, map) = Self.frame(scene, at: up)
        let found = try #require(ShowcaseFinder().find(map: map, faces: faces))
        #expect(found.holder == 1)
        let disparity = try #require(found.disparity)
        #expect(abs(disparity - cup.disparity) < 0.05 * cup.disparity, "\(disparity) vs \(cup.disparity)")
        // The region is the cup and the hand that holds it (the forearm below it too): it covers
        // most of the cup, and is not much wider.
        let f = found.bounds, c = cup.bounds
        let iw = max(0, min(f.x + f.width, c.x + c.width) - max(f.x, c.x)), ih = max(0, min(f.y + f.height, c.y + c.height) - max(f.y, c.y))
        #expect(iw * ih > 0.7 * c.width * c.height && f.width < 2 * c.width, "\(found.bounds) vs \(cup.bounds)")
        #expect(ShowcaseFinder().find(map: map, faces: faces)?.holder == 1)
        // At rest, before the first showing: the cup at the chest is only 25 cm nearer — not shown.
        let (restFaces, restMap) = Self.frame(scene, at: first.start - 0.5)
        #expect(ShowcaseFinder().find(map: restMap, faces: restFaces) == nil)
    }

    @Test func debouncedItAppearsOnItsSecondFrameAndStaysThroughAShortGap() throws {
        let scene = Self.scene()
        let s = try #require(scene.showcase?.showings.first)
        var finder = ShowcaseFinder()
        let up = s.start + ShowcaseScript.riseTime + 0.3
        let (faces, map) = Self.frame(scene, at: up)
        #expect(finder.update(map: map, faces: faces) == nil)
        #expect(finder.update(map: map, faces: faces)?.showing == 1)
        // Two frames without a map: still shown; the third: gone. Shown again: a new showing.
        #expect(finder.update(map: nil, faces: faces) != nil)
        #expect(finder.update(map: nil, faces: faces) != nil)
        #expect(finder.update(map: nil, faces: faces) == nil)
        _ = finder.update(map: map, faces: faces)
        #expect(finder.update(map: map, faces: faces)?.showing == 2)
    }

    @Test func someoneNearerPassingIsNotAShownObject() {
        // A 64×36 map: wall 10 px; a face at 40 px at x 0.4…0.5; a nearer person (60 px) at x 0.55…0.75
        // whose own face is at x 0.6…0.7 — inside the first one's reach.
        let values = Image(width: 64, height: 36, format: .float32)
        for y in 0..<36 {
            let row = values.plane(0).row(y, as: Float.self)
            for x in 0..<64 {
                let u = (Double(x) + 0.5) / 64
                row[x] = u >= 0.55 && u < 0.75 ? 60 : u >= 0.4 && u < 0.5 && y < 20 ? 40 : 10
            }
        }
        let map = DisparityMap(values: values, referenceWidth: 640, referenceHeight: 360)
        let far = Detection(id: 1, type: .humanFace, bounds: .init(x: 0.4, y: 0.2, width: 0.1, height: 0.15), disparity: 40)
        let near = Detection(id: 3, type: .humanFace, bounds: .init(x: 0.6, y: 0.15, width: 0.1, height: 0.15), disparity: 60)
        #expect(ShowcaseFinder().find(map: map, faces: [far, near]) == nil)
        // Without the nearer person's face in view it would have been taken for a shown object.
        #expect(ShowcaseFinder().find(map: map, faces: [far]) != nil)
    }

    @Test func focusRacksToTheShownObjectAndBackToItsHolder() {
        var engine = FocusEngine()
        let face = Detection(id: 1, groupID: 1, type: .humanFace, bounds: .init(x: 0.4, y: 0.2, width: 0.1, height: 0.15),
                             disparity: 40, facing: .towards)
        var shown = Detection(id: 9, groupID: 1, type: .salientObject, bounds: .init(x: 0.4, y: 0.3, width: 0.12, height: 0.15),
                              disparity: 80)
        shown.shown = true
        var last: FocusEngineOutput?
        func run(_ frames: ClosedRange<Int>, _ detections: Detections) {
            for k in frames {
                last = engine.ingest(time: Timestamp(frame: k, fps: 30), detections: detections, sceneDisparity: 10).last ?? last
            }
        }
        run(0...59, [face])
        #expect(abs((last?.focus.focusDisparity ?? 0) - 40) < 0.5)
        // Shown: focus on it within a rack (at most 0.8 s), at once — no dwell, no hold.
        run(60...84, [face, shown])
        #expect(abs((last?.focus.focusDisparity ?? 0) - 80) < 0.5, "\(String(describing: last?.focus))")
        #expect(last?.focus.targetDetectionID == 9)
        // Lowered: back on the holder's face within a rack.
        run(85...109, [face])
        #expect(abs((last?.focus.focusDisparity ?? 0) - 40) < 0.5, "\(String(describing: last?.focus))")
        #expect(last?.focus.targetDetectionID == 1)
    }
}
