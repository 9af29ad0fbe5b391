// One lens: MediaPipe's palm detector (the real model, run by LiteRT) finds the synthetic
// presenter's hand holding the cup up; the showcase finder judges from the palm's apparent size
// against its owner's face whether it is held out toward the lens; mono-depth places it there.
import CineMedia
import CineVision
import Foundation
import Testing

@Suite struct PalmShowcaseTests {
    static let size = (width: 1280, height: 720)

    static func scene(seed: UInt64) -> SyntheticScene {
        var c = SyntheticScene.Configuration(width: size.width, height: size.height, seed: seed, subjectCount: 2)
        c.talk = true
        c.showcase = true
        return SyntheticScene(c)
    }

    /// The left view at `t` and the true faces (IDs 1, 2: subject 0 holds the cup).
    static func frame(_ scene: SyntheticScene, at t: Double) -> (image: Image, faces: [Detection]) {
        let k = Int((t * 30).rounded())
        let l = Image(width: size.width, height: size.height, format: .i420)
        let r = Image(width: size.width, height: size.height, format: .i420)
        scene.render(frame: k, left: l, right: r, groundTruth: nil)
        let faces = scene.subjects(at: scene.time(ofFrame: k)).map {
            Detection(id: $0.id + 1, type: .humanFace, bounds: $0.face)
        }
        return (l, faces)
    }

    @Test func theHandHoldingTheCupUpIsFoundAndJudgedNearerThanItsFace() throws {
        let detector = try PalmDetector()
        var finder = ShowcaseFinder()
        for seed: UInt64 in [1, 2] {
            let scene = Self.scene(seed: seed)
            let first = try #require(scene.showcase?.showings.first)
            let up = first.start + ShowcaseScript.riseTime + 0.8
            let (image, faces) = Self.frame(scene, at: up)
            let cup = try #require(scene.props(at: up).first { $0.kind == .cup })
            let palms = try detector.detect(image, in: faces.map(finder.reach))
            // The palm is at the cup's left edge, where the hand holds it.
            let hand = try #require(palms.first, "seed \(seed): no palm")
            let cx = hand.bounds.x + hand.bounds.width / 2, cy = hand.bounds.y + hand.bounds.height / 2
            #expect(abs(cx - cup.bounds.x) < cup.bounds.width && cy > cup.bounds.y - 0.5 * cup.bounds.height
                    && cy < cup.bounds.y + 1.5 * cup.bounds.height, "seed \(seed): palm \(hand.bounds), cup \(cup.bounds)")
            let found = try #require(finder.find(palms: palms, faces: faces, width: image.width, height: image.height))
            #expect(found.holder == 1, "seed \(seed)")
            // 70 cm nearer than a face about 1.3 m away: a bit over twice as near.
            let truth = try #require(scene.subjects(at: up).first { $0.id == 0 })
            let nearness = try #require(found.nearness)
            #expect(abs(nearness - cup.disparity / truth.disparity) < 0.35, "seed \(seed): \(nearness) vs \(cup.disparity / truth.disparity)")
            // The region stands for the hand and what it holds: a good part of the cup (the hand
            // holds it from the side; the fingers point along it, the palm detector reads them as up).
            let f = found.bounds, c = cup.bounds
            let iw = max(0, min(f.x + f.width, c.x + c.width) - max(f.x, c.x))
            let ih = max(0, min(f.y + f.height, c.y + c.height) - max(f.y, c.y))
            #expect(iw * ih > 0.4 * c.width * c.height, "seed \(seed): \(found.bounds) vs \(cup.bounds)")
            // At rest, before the first showing, the hand at the chest is not shown.
            let (restImage, restFaces) = Self.frame(scene, at: first.start - 0.5)
            let resting = try detector.detect(restImage, in: restFaces.map(finder.reach))
            #expect(finder.find(palms: resting, faces: restFaces, width: restImage.width, height: restImage.height) == nil,
                    "seed \(seed): \(resting)")
            finder = ShowcaseFinder()
        }
    }

    static func palm(x: Double, y: Double, side: Double) -> PalmDetection {
        let w = Double(size.width), h = Double(size.height)
        return PalmDetection(bounds: NormalizedRect(x: x - side / 2 / w, y: y - side / 2 / h, width: side / w, height: side / h),
                             score: 0.9, keypoints: [])
    }

    @Test func aPalmIsJudgedAgainstItsNearestOwnerWithinReach() {
        let finder = ShowcaseFinder()
        // A near face (100 px tall) and a far one (50 px) beside it.
        let near = Detection(id: 1, type: .humanFace, bounds: NormalizedRect(x: 0.4, y: 0.2, width: 0.06, height: 100.0 / 720))
        let far = Detection(id: 2, type: .humanFace, bounds: NormalizedRect(x: 0.52, y: 0.25, width: 0.03, height: 50.0 / 720))
        let w = Self.size.width, h = Self.size.height
        // At the face's distance a palm is palmToFace (0.46) faces tall: 46 px beside a 100 px face.
        let atFace = Self.palm(x: 0.48, y: 0.45, side: 46)
        #expect(finder.find(palms: [atFace], faces: [near, far], width: w, height: h) == nil,
                "at the near face's distance; against the far face it would look twice as near")
        let held = Self.palm(x: 0.48, y: 0.45, side: 90)
        let found = finder.find(palms: [held], faces: [near, far], width: w, height: h)
        #expect(found?.holder == 1)
        #expect(abs((found?.nearness ?? 0) - 90 / 46) < 0.01)
        // Out of everyone's reach (far to the right), or with no face at all: nothing.
        #expect(finder.find(palms: [Self.palm(x: 0.95, y: 0.45, side: 90)], faces: [near], width: w, height: h) == nil)
        #expect(finder.find(palms: [held], faces: [], width: w, height: h) == nil)
        // The holder's disparity, when the face has one, scaled by the nearness.
        var stereoFace = near
        stereoFace.disparity = 20
        let d = finder.find(palms: [held], faces: [stereoFace], width: w, height: h)?.disparity ?? 0
        #expect(abs(d - 20 * 90 / 46) < 0.1)
    }

    @Test func monoDepthPlacesTheShownObjectAtItsHoldersDisparityTimesItsNearness() {
        var depth = MonoDepth()
        // The matte: the person (x 0.3 … 0.6 of the frame), the room elsewhere.
        let matte = Image(width: 256, height: 144, format: .gray8)
        for y in 0..<144 {
            let row = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<256 { row[x] = x >= 77 && x < 154 ? 255 : 0 }
        }
        let face = Detection(id: 1, type: .humanFace, bounds: NormalizedRect(x: 0.45, y: 0.2, width: 0.08, height: 0.15))
        var shown = Detection(id: 7, groupID: 1, type: .salientObject, bounds: NormalizedRect(x: 0.2, y: 0.4, width: 0.2, height: 0.2))
        shown.shown = true
        shown.nearness = 2
        // The frame: a grey room, and a white thing held at x 0.24 … 0.28 that the matte leaves out.
        let frame = Image(width: 1280, height: 720, format: .rgba8)
        for y in 0..<720 {
            let row = frame.plane(0).row(y, as: UInt8.self)
            for x in 0..<1280 {
                let v: UInt8 = x >= 307 && x < 358 && y >= 300 && y < 420 ? 250 : 128
                row[4 * x] = v; row[4 * x + 1] = v; row[4 * x + 2] = v; row[4 * x + 3] = 255
            }
        }
        let map = depth.estimate(matte: matte, detections: [face, shown], referenceWidth: 1280, referenceHeight: 720,
                                 frame: frame)
        let placed = depth.withDisparities([face, shown])
        let faceDisparity = placed[0].disparity ?? 0, objectDisparity = placed[1].disparity ?? 0
        #expect(faceDisparity > 0)
        #expect(abs(objectDisparity - 2 * faceDisparity) < 1e-6, "\(objectDisparity) vs \(faceDisparity)")
        // Within its box: at its disparity where the matte holds the person (x 0.35) and where
        // the picture is unlike the room around the box (the white thing, x 0.26); the room's
        // where it looks like the room (x 0.22); the person outside the box keeps theirs (x 0.5).
        let v = map.values, row = v.plane(0).row(v.height / 2, as: Float.self)
        func at(_ x: Double) -> Double { Double(row[Int(x * Double(v.width))]) }
        #expect(abs(at(0.35) - objectDisparity) < 0.01, "\(at(0.35))")
        #expect(abs(at(0.26) - objectDisparity) < 0.01, "\(at(0.26))")
        #expect(at(0.22) < 0.5 * faceDisparity, "\(at(0.22))")
        #expect(abs(at(0.5) - faceDisparity) < 0.01, "\(at(0.5))")
        #expect((0..<v.height).allSatisfy { y in (0..<v.width).allSatisfy { v.plane(0).row(y, as: Float.self)[$0].isFinite } })
    }
}
