// PersonAppearance and its use by ObjectTracker: walkers of the wide synthetic shot look like
// themselves from frame to frame and unlike one another; a lost walker's track is not given to
// someone else who walks in beside where it was lost, and is found again by its look farther on.
import CineMedia
import CineVision
import Testing

@Suite struct PersonAppearanceTests {
    @Test func eachWalkerLooksLikeThemselvesAndUnlikeTheOthers() {
        var c = SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1)
        c.wide = true
        c.subjectCount = 6
        let scene = SyntheticScene(c)
        // Each whole, unhidden walker's look at frame 60, then at frame 90 (a second on, their
        // box a little off, as a detector's is).
        func looks(at frame: Int, loosen: Double) -> [Int: PersonAppearance] {
            let l = Image(width: 1280, height: 720, format: .i420), r = Image(width: 1280, height: 720, format: .i420)
            scene.render(frame: frame, left: l, right: r, groundTruth: nil)
            let walkers = scene.subjects(at: scene.time(ofFrame: frame))
            var out: [Int: PersonAppearance] = [:]
            for s in walkers where s.body.x > 0.001 && s.body.x + s.body.width < 0.999 && s.body.height * 720 >= 48
                && !walkers.contains(where: { $0.disparity > s.disparity && ObjectTracker.iou($0.body, s.body) > 0 }) {
                let b = s.body
                let box = NormalizedRect(x: b.x - loosen * b.width, y: b.y + loosen * b.height,
                                         width: b.width * (1 + loosen), height: b.height * (1 - loosen))
                out[s.id] = PersonAppearance.measure(in: l, bounds: box)
            }
            return out
        }
        let first = looks(at: 60, loosen: 0), later = looks(at: 90, loosen: 0.08)
        let both = first.keys.filter { later[$0] != nil }.sorted()
        #expect(both.count >= 4, "\(both)")
        // Within half the gate a lost walker may be found farther from where they were lost
        // (``ObjectTracker/Configuration/reidentifyByLookDistance``): each walker is, and no
        // one else is.
        let gate = ObjectTracker.Configuration().appearanceGate
        for id in both {
            let own = first[id]!.distance(to: later[id]!)
            #expect(own < gate / 2, "walker \(id) differs from themselves by \(own)")
            for other in both where other != id {
                let d = first[id]!.distance(to: later[other]!)
                #expect(d > gate / 2 && d > 2 * own, "walkers \(id) and \(other) differ by \(d) only")
            }
        }
    }

    /// A look of one flat colour (top and legs alike).
    static func look(_ y: Float, _ u: Float, _ v: Float) -> PersonAppearance {
        PersonAppearance(bands: [SIMD4(y, u, v, 10), SIMD4(y, u, v, 10)])
    }

    static func body(_ x: Double, _ look: PersonAppearance) -> TrackerObservation {
        var o = TrackerObservation(type: .humanBody, bounds: NormalizedRect(x: x, y: 0.4, width: 0.03, height: 0.12), confidence: 0.9)
        o.appearance = look
        return o
    }

    @Test func aLostWalkersTrackGoesToNoOneWhoLooksOtherwise() {
        // A walker in blue is tracked, then lost behind a pole; someone in red walks in beside
        // the place. Without looks the newcomer takes the lost walker's ID; with them, a new one.
        let blue = Self.look(90, 170, 110), red = Self.look(120, 100, 180)
        for gate in [0.0, ObjectTracker.Configuration().appearanceGate] {
            var c = ObjectTracker.Configuration()
            c.appearanceGate = gate
            var tracker = ObjectTracker(configuration: c)
            var id = 0
            for k in 0..<4 { id = tracker.update([Self.body(0.30 + 0.005 * Double(k), blue)])[0].id }
            for _ in 0..<5 { _ = tracker.update([]) }  // past its coasting: not reported
            let newcomer = tracker.update([Self.body(0.29, red)])
            if gate == 0 {
                #expect(newcomer.contains { $0.id == id }, "\(newcomer)")
            } else {
                #expect(!newcomer.contains { $0.id == id }, "\(newcomer)")
            }
        }
    }

    @Test func aWalkerSteppingOutFromBehindANearerOneKeepsTheirID() {
        // A far walker (shorter, in blue) walks behind a nearer one (in a bluer grey, their looks
        // 25 levels apart: under the gate). For two rounds the detector sees only the nearer
        // one; then only the far one, whose box overlaps the nearer walker's track more than
        // their own lagging one. Their look gives them their own ID; by overlap alone they take
        // the nearer walker's.
        let blue = Self.look(90, 170, 110), grey = Self.look(90, 155, 120)
        #expect(abs(blue.distance(to: grey) - 25) < 1e-3)
        func box(_ x: Double, _ height: Double, _ look: PersonAppearance) -> TrackerObservation {
            var o = TrackerObservation(type: .humanBody, bounds: NormalizedRect(x: x, y: 0.30, width: 0.03 + (height - 0.09) * 0.5, height: height),
                                       confidence: 0.9)
            o.appearance = look
            return o
        }
        for (scale, keeps) in [(ObjectTracker.Configuration().lookScale, true), (0, false)] {
            var c = ObjectTracker.Configuration()
            c.lookScale = scale
            var tracker = ObjectTracker(configuration: c)
            var out: [Detection] = []
            for _ in 0..<3 { out = tracker.update([box(0.30, 0.09, blue), box(0.31, 0.10, grey)]) }
            let far = out.first { $0.bounds.height < 0.095 }!.id, near = out.first { $0.bounds.height > 0.095 }!.id
            for _ in 0..<2 { _ = tracker.update([box(0.31, 0.10, grey)]) }
            out = tracker.update([box(0.312, 0.09, blue)])
            // Seen this round: reported at the box's confidence (a coasting track at half of it).
            #expect(out.contains { $0.id == far && $0.confidence > 0.8 } == keeps, "\(out)")
            #expect(out.contains { $0.id == near && $0.confidence > 0.8 } != keeps, "\(out)")
        }
    }

    @Test func aLostWalkerIsFoundAgainByTheirLookFartherOn() {
        // Lost for a while and found two and a half box sizes from where their motion took
        // them: by box alone a new ID, by a look that agrees the same one; a look that differs
        // does not stretch the reach.
        let blue = Self.look(90, 170, 110), red = Self.look(120, 100, 180)
        for (look, same) in [(blue, true), (red, false)] {
            var tracker = ObjectTracker()
            var id = 0
            for _ in 0..<4 { id = tracker.update([Self.body(0.30, blue)])[0].id }
            for _ in 0..<5 { _ = tracker.update([]) }
            let back = tracker.update([Self.body(0.30 + 2.5 * 0.12, look)])
            #expect(back.count == 1)
            #expect((back.first?.id == id) == same, "\(back)")
        }
    }
}
