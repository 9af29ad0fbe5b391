// ObjectTracker and SalientObjectFinder tests: identities through a crossing of two synthetic
// subjects (with occlusion), face↔body groups, the looking-away signal, ByteTrack's
// low-confidence pass, robust disparity against an intruder, salient-object segmentation.
import CineMedia
import CineVision
import Foundation
import Testing

/// Observations a perfect detector would give for the synthetic scene at `t`: frontal faces of
/// subjects facing the camera, bodies; the farther of two overlapping subjects is hidden.
private func observations(_ scene: SyntheticScene, at t: Double) -> [TrackerObservation] {
    let subjects = scene.subjects(at: t)
    var out: [TrackerObservation] = []
    for s in subjects {
        let nearer = subjects.filter { $0.id != s.id && $0.disparity > s.disparity }
        let faceHidden = nearer.contains { n in
            let cx = s.face.x + s.face.width / 2
            return cx > n.body.x && cx < n.body.x + n.body.width
        }
        let bodyHidden = nearer.contains { ObjectTracker.iou($0.body, s.body) > 0.3 }
        if s.facingCamera && !faceHidden && s.face.width > 0.01 && s.face.height > 0.01 {
            out.append(TrackerObservation(type: .humanFace, bounds: s.face, confidence: 0.9, facing: .towards, disparity: s.disparity))
        }
        if !bodyHidden && s.body.width > 0.02 {
            out.append(TrackerObservation(type: .humanBody, bounds: s.body, confidence: 0.9, facing: .unknown, disparity: s.disparity))
        }
    }
    return out
}

/// The subject whose box best overlaps a detection.
private func subject(of d: Detection, in subjects: [SyntheticSubject]) -> SyntheticSubject? {
    subjects.max { a, b in
        let ra = d.type == .humanFace ? a.face : a.body, rb = d.type == .humanFace ? b.face : b.body
        return ObjectTracker.iou(ra, d.bounds) < ObjectTracker.iou(rb, d.bounds)
    }.flatMap { s in ObjectTracker.iou(d.type == .humanFace ? s.face : s.body, d.bounds) > 0.3 ? s : nil }
}

/// A tracker that has seen bodies at `boxes` for three rounds, and its last report.
private func trackingBodies(_ boxes: NormalizedRect...) -> (ObjectTracker, [Detection]) {
    var tracker = ObjectTracker(), out: [Detection] = []
    for _ in 0..<3 { out = tracker.update(boxes.map { TrackerObservation(type: .humanBody, bounds: $0, confidence: 0.9) }) }
    return (tracker, out)
}

@Suite("ObjectTracker")
struct TrackerTests {
    @Test func aWalkersLegsDoNotTakeTheWalkersTrack() {
        // A tall walker tracked for a few rounds; one round HOG sees only their legs (a box half
        // as tall, inside theirs, overlapping it by IoU 0.25): a new track, not the walker's.
        var tracker = ObjectTracker()
        let walker = NormalizedRect(x: 0.2, y: 0.4, width: 0.04, height: 0.2)
        var id = 0
        for _ in 0..<3 { id = tracker.update([TrackerObservation(type: .humanBody, bounds: walker, confidence: 0.9)])[0].id }
        let legs = NormalizedRect(x: 0.205, y: 0.5, width: 0.02, height: 0.1)
        #expect(ObjectTracker.iou(walker, legs) >= 0.2)
        let out = tracker.update([TrackerObservation(type: .humanBody, bounds: legs, confidence: 0.9)])
        #expect(!out.contains { $0.id == id && $0.bounds.height < 0.15 }, "\(out)")
        // The walker seen whole again keeps their ID.
        let back = tracker.update([TrackerObservation(type: .humanBody, bounds: walker, confidence: 0.9)])
        #expect(back.contains { $0.id == id && abs($0.bounds.height - 0.2) < 0.02 }, "\(back)")
    }

    @Test func twoWalkersLostWhileCrossingComeOutWithTheirOwnIDs() {
        // A near walker (0.2 tall) and a far one (0.14) are lost for a few rounds while one hides
        // the other, and come out each nearer the other's last place: the one of the track's size
        // takes it back, not the nearest.
        var tracker = ObjectTracker()
        func box(x: Double, height: Double) -> TrackerObservation {
            TrackerObservation(type: .humanBody, bounds: NormalizedRect(x: x - 0.2 * height, y: 0.3, width: 0.4 * height, height: height),
                               confidence: 0.9)
        }
        var out: [Detection] = []
        for _ in 0..<3 { out = tracker.update([box(x: 0.50, height: 0.2), box(x: 0.56, height: 0.14)]) }
        let near = out.first { $0.bounds.height > 0.17 }!.id, far = out.first { $0.bounds.height < 0.17 }!.id
        for _ in 0..<4 { _ = tracker.update([]) }
        out = tracker.update([box(x: 0.62, height: 0.2), box(x: 0.44, height: 0.14)])
        #expect(out.first { $0.bounds.height > 0.17 }?.id == near, "\(out)")
        #expect(out.first { $0.bounds.height < 0.17 }?.id == far, "\(out)")
    }

    @Test func oneBoxOverTwoWalkersGoesToTheWalkerOfItsHeight() {
        // Two walkers overlap, a taller one (a) and a shorter one (b) standing on the same row;
        // the detector gives one box of a's height that overlaps b's box more (b lies inside it).
        let a = NormalizedRect(x: 0.49, y: 0.30, width: 0.04, height: 0.11)
        let b = NormalizedRect(x: 0.50, y: 0.32, width: 0.033, height: 0.09)
        var (tracker, out) = trackingBodies(a, b)
        let idA = out.first { $0.bounds.height > 0.1 }!.id
        let merged = NormalizedRect(x: 0.50, y: 0.30, width: 0.04, height: 0.11)
        #expect(ObjectTracker.iou(merged, b) > ObjectTracker.iou(merged, a))
        out = tracker.update([TrackerObservation(type: .humanBody, bounds: merged, confidence: 0.9)])
        #expect(out.first { $0.confidence > 0.8 }?.id == idA, "\(out)")
    }

    @Test func oneBoxOverTwoWalkersGoesToTheWalkerWhoseRowItStandsOn() {
        // Two walkers of one height side by side at different distances: a stands higher in the
        // picture (farther) than b. The detector's box stands on b's row but overlaps a's box more.
        let a = NormalizedRect(x: 0.50, y: 0.30, width: 0.03, height: 0.10)
        let b = NormalizedRect(x: 0.53, y: 0.33, width: 0.03, height: 0.10)
        var (tracker, out) = trackingBodies(a, b)
        let idA = out.first { $0.bounds.y < 0.315 }!.id, idB = out.first { $0.bounds.y > 0.315 }!.id
        let box = NormalizedRect(x: 0.512, y: 0.33, width: 0.03, height: 0.10)
        #expect(ObjectTracker.iou(box, a) > ObjectTracker.iou(box, b))
        out = tracker.update([TrackerObservation(type: .humanBody, bounds: box, confidence: 0.9)])
        // b's track moves to the box; a's coasts where it was.
        #expect(out.first { $0.id == idB }.map { $0.bounds.x < 0.525 } == true, "\(out)")
        #expect(out.first { $0.id == idA }.map { abs($0.bounds.x - 0.50) < 0.002 && abs($0.bounds.y - 0.30) < 0.002 } ?? true, "\(out)")
    }

    @Test func aWalkerLastMatchedByAWeakWindowDoesNotCoast() {
        // Two walkers tracked for three rounds; then b is matched once by a weak window (0.6) and
        // both are missed: a, last seen by a sure window, coasts; b is not carried on.
        let a = NormalizedRect(x: 0.2, y: 0.3, width: 0.03, height: 0.1)
        let b = NormalizedRect(x: 0.6, y: 0.3, width: 0.03, height: 0.1)
        var (tracker, out) = trackingBodies(a, b)
        let idA = out.first { $0.bounds.x < 0.4 }!.id, idB = out.first { $0.bounds.x > 0.4 }!.id
        _ = tracker.update([TrackerObservation(type: .humanBody, bounds: a, confidence: 0.9),
                            TrackerObservation(type: .humanBody, bounds: b, confidence: 0.6)])
        out = tracker.update([])
        #expect(out.contains { $0.id == idA }, "\(out)")
        #expect(!out.contains { $0.id == idB }, "\(out)")
    }

    @Test func aWalkerMissedBehindANearerOneIsNotReported() {
        // A far walker (a, higher in the picture, shorter) walks behind a near one (b): when the
        // detector sees only b, a's coasting box lies inside b's and is not reported; beside b it is.
        let a = NormalizedRect(x: 0.300, y: 0.30, width: 0.030, height: 0.09)
        let b = NormalizedRect(x: 0.298, y: 0.30, width: 0.034, height: 0.10)
        let apart = NormalizedRect(x: 0.2, y: 0.30, width: 0.03, height: 0.09)
        for (far, hidden) in [(a, true), (apart, false)] {
            var (tracker, out) = trackingBodies(far, b)
            let idFar = out.first { $0.bounds.height < 0.095 }!.id
            out = tracker.update([TrackerObservation(type: .humanBody, bounds: b, confidence: 0.9)])
            #expect(out.contains { $0.id == idFar } != hidden, "\(out)")
        }
    }

    @Test func aWindowOverAWalkerAndAPostDoesNotGrowTheirTrack() {
        // A walker (0.11 tall) passes a post: for ten rounds the detector's box covers them and the
        // post above them (0.17 tall, the same feet). When they step out, their own box is theirs.
        func stepsOut(outlierRatio: Double) -> Bool {
            var c = ObjectTracker.Configuration()
            c.bodyOutlierRatio = outlierRatio
            var tracker = ObjectTracker(configuration: c)
            func seen(_ x: Double, height: Double) -> [Detection] {
                var o = TrackerObservation(type: .humanBody, bounds: NormalizedRect(x: x, y: 0.41 - height, width: 0.04, height: height),
                                           confidence: 0.999)
                o.mustMove = true
                return tracker.update([o])
            }
            var x = 0.3, id = 0
            for _ in 0..<4 { id = seen(x, height: 0.11).first?.id ?? -1; x += 0.01 }
            for _ in 0..<10 { _ = seen(x, height: 0.17); x += 0.01 }
            return seen(x, height: 0.105).contains { $0.id == id && $0.confidence > 0.9 }
        }
        #expect(stepsOut(outlierRatio: ObjectTracker.Configuration().bodyOutlierRatio))
        // Learning the windows' height, the track grew past the gate and lost the walker.
        #expect(!stepsOut(outlierRatio: 0))
    }

    /// A walker seen for three rounds at `walker`, missed for `misses`, then a body box at `box`:
    /// the walker's ID and what the tracker reports.
    static func lostWalker(_ c: ObjectTracker.Configuration, at walker: NormalizedRect, misses: Int,
                           thenABoxAt box: NormalizedRect) -> (id: Int, out: [Detection]) {
        var tracker = ObjectTracker(configuration: c)
        var id = 0
        for _ in 0..<3 { id = tracker.update([TrackerObservation(type: .humanBody, bounds: walker, confidence: 0.9)])[0].id }
        for _ in 0..<misses { _ = tracker.update([]) }
        return (id, tracker.update([TrackerObservation(type: .humanBody, bounds: box, confidence: 0.9)]))
    }

    @Test func howFarALostWalkerIsFoundAgainIsMeasuredOnThePicture() {
        // A walker 0.08 of the frame tall, lost for two rounds; a box 0.1 of the frame's width to
        // the side is 1.25 heights away on a square frame (found again) but 2.2 on a 16:9 one.
        func foundAgain(aspect: Double) -> Bool {
            var c = ObjectTracker.Configuration()
            c.frameAspect = aspect
            let (id, out) = Self.lostWalker(c, at: NormalizedRect(x: 0.5, y: 0.4, width: 0.02, height: 0.08), misses: 2,
                                            thenABoxAt: NormalizedRect(x: 0.6, y: 0.4, width: 0.02, height: 0.08))
            return out.contains { $0.id == id && abs($0.bounds.x - 0.6) < 0.01 }
        }
        #expect(foundAgain(aspect: 1))
        #expect(!foundAgain(aspect: 16.0 / 9))
    }

    @Test func aWalkerMissedOnceIsNotFoundAgainOnAPostBesideThem() {
        // A walker missed for one round: a window 1.2 box sizes away (a post) does not take their
        // track; after three missed rounds the same window may.
        func walkerAndPost(misses: Int, perMiss: Double = ObjectTracker.Configuration().reidentifyPerMiss) -> (walker: Int, post: Int?) {
            var c = ObjectTracker.Configuration()
            c.reidentifyPerMiss = perMiss
            let post = NormalizedRect(x: 0.5, y: 0.64, width: 0.08, height: 0.2)   // 0.24 below: 1.2 box sizes
            let (id, out) = Self.lostWalker(c, at: NormalizedRect(x: 0.5, y: 0.4, width: 0.08, height: 0.2), misses: misses,
                                            thenABoxAt: post)
            // The box reported on the post, if any (the walker's may still coast where they were).
            return (id, out.first { abs($0.bounds.y - 0.64) < 0.01 }?.id)
        }
        let once = walkerAndPost(misses: 1), thrice = walkerAndPost(misses: 3)
        #expect(once.post != once.walker, "\(once)")
        #expect(thrice.post == thrice.walker, "\(thrice)")
        // Without the limit, one miss was enough.
        let unlimited = walkerAndPost(misses: 1, perMiss: 100)
        #expect(unlimited.post == unlimited.walker, "\(unlimited)")
    }

    @Test func aBodysHeightFollowsItsBoxesSlowly() {
        // A walker 0.2 tall; one round the detector's window is half as tall again (a window
        // over the walker and a post): the track's box grows by 30 % of that, not 70 %.
        var tracker = ObjectTracker()
        let walker = NormalizedRect(x: 0.3, y: 0.4, width: 0.08, height: 0.2)
        for _ in 0..<3 { _ = tracker.update([TrackerObservation(type: .humanBody, bounds: walker, confidence: 0.9)]) }
        let tall = NormalizedRect(x: 0.28, y: 0.3, width: 0.12, height: 0.3)
        let out = tracker.update([TrackerObservation(type: .humanBody, bounds: tall, confidence: 0.9)])
        #expect(out.count == 1 && abs(out[0].bounds.height - 0.23) < 0.005, "\(out)")
    }

    @Test func testIDsSurviveACrossingOfTwoSubjects() throws {
        var cfg = SyntheticScene.Configuration(width: 320, height: 180, fps: 15, seed: 1)
        cfg.subjectCount = 2
        let scene = SyntheticScene(cfg)
        var tracker = ObjectTracker()
        var bodyID: [Int: Int] = [:]   // subject → body track id
        var switches = 0, crossings = 0, occludedFrames = 0
        var lastVisible: [Int: Int] = [:]
        for f in 0..<scene.frameCount {
            let t = scene.time(ofFrame: f)
            let obs = observations(scene, at: t)
            let subjects = scene.subjects(at: t)
            if subjects.count == 2, ObjectTracker.iou(subjects[0].body, subjects[1].body) > 0.1 { crossings += 1 }
            if obs.filter({ $0.type == .humanBody }).count < subjects.count { occludedFrames += 1 }
            let out = tracker.update(obs, disparity: nil)
            for d in out where d.type == .humanBody {
                guard let s = subject(of: d, in: subjects) else { continue }
                // A subject that left the frame may come back with a new ID; within a visit it must not change.
                if let old = bodyID[s.id], old != d.id, (lastVisible[s.id] ?? -100) >= f - 3 { switches += 1 }
                bodyID[s.id] = d.id
                lastVisible[s.id] = f
            }
        }
        try #require(crossings > 0, "the scene must contain a crossing")
        #expect(occludedFrames > 0)
        #expect(switches == 0)
        #expect(Set(bodyID.values).count == bodyID.count, "two subjects never share an ID")
    }

    @Test func testFaceAndBodyShareAGroupAndFaceTurnsAway() {
        var tracker = ObjectTracker()
        let body = NormalizedRect(x: 0.4, y: 0.2, width: 0.2, height: 0.7)
        let face = NormalizedRect(x: 0.45, y: 0.22, width: 0.1, height: 0.12)
        var out = tracker.update([TrackerObservation(type: .humanBody, bounds: body, confidence: 0.9),
                                  TrackerObservation(type: .humanFace, bounds: face, confidence: 0.9, facing: .towards)])
        let f0 = out.first { $0.type == .humanFace }!, b0 = out.first { $0.type == .humanBody }!
        #expect(f0.groupID == b0.id && b0.groupID == b0.id)
        #expect(f0.facing == .towards)
        // The subject turns round: the frontal face is gone, the body stays.
        for _ in 0..<5 { out = tracker.update([TrackerObservation(type: .humanBody, bounds: body, confidence: 0.9)]) }
        let f1 = out.first { $0.type == .humanFace }
        #expect(f1?.id == f0.id && f1?.facing == .away)
        #expect(out.first { $0.type == .humanBody }?.facing == .away)
        // Turns back: same face ID, towards again.
        out = tracker.update([TrackerObservation(type: .humanBody, bounds: body, confidence: 0.9),
                              TrackerObservation(type: .humanFace, bounds: face, confidence: 0.9, facing: .towards)])
        #expect(out.first { $0.type == .humanFace }.map { $0.id == f0.id && $0.facing == .towards } == true)
    }

    @Test func testLowConfidenceContinuesTracksButStartsNone() {
        var tracker = ObjectTracker()
        let a = NormalizedRect(x: 0.1, y: 0.1, width: 0.1, height: 0.1)
        let moved = NormalizedRect(x: 0.11, y: 0.1, width: 0.1, height: 0.1)
        let id = tracker.update([TrackerObservation(type: .humanFace, bounds: a, confidence: 0.9)])[0].id
        let out = tracker.update([TrackerObservation(type: .humanFace, bounds: moved, confidence: 0.3),
                                  TrackerObservation(type: .humanFace, bounds: NormalizedRect(x: 0.7, y: 0.7, width: 0.1, height: 0.1), confidence: 0.3)])
        #expect(out.count == 1 && out[0].id == id)
    }

    @Test func aSingleStrayHitIsNotCarriedOnButAConfirmedTrackCoasts() {
        var tracker = ObjectTracker()
        let stray = NormalizedRect(x: 0.7, y: 0.2, width: 0.05, height: 0.08)
        #expect(tracker.update([TrackerObservation(type: .humanFace, bounds: stray, confidence: 0.6)]).count == 1)
        #expect(tracker.update([]).isEmpty, "one hit, then missed: not reported")
        var confirmed = ObjectTracker()
        let face = NormalizedRect(x: 0.2, y: 0.2, width: 0.1, height: 0.12)
        _ = confirmed.update([TrackerObservation(type: .humanFace, bounds: face, confidence: 0.9)])
        let id = confirmed.update([TrackerObservation(type: .humanFace, bounds: face, confidence: 0.9)])[0].id
        for _ in 0..<confirmed.configuration.reportedMisses { #expect(confirmed.update([]).map(\.id) == [id]) }
        #expect(confirmed.update([]).isEmpty)
    }

    @Test func testShortMissKeepsIDAndMotionCarriesTheBox() {
        var tracker = ObjectTracker()
        var ids: Set<Int> = []
        for f in 0..<30 {
            let r = NormalizedRect(x: 0.1 + 0.01 * Double(f), y: 0.3, width: 0.1, height: 0.1)
            let obs = (12..<16).contains(f) ? [] : [TrackerObservation(type: .catFace, bounds: r, confidence: 0.9)]
            for d in tracker.update(obs) { ids.insert(d.id) }
        }
        #expect(ids.count == 1)
    }

    @Test func testRobustDisparityIgnoresAnObjectEnteringTheBox() {
        let img = Image(width: 40, height: 40, format: .float32)
        for y in 0..<40 {
            let row = img.plane(0).row(y, as: Float.self)
            for x in 0..<40 { row[x] = x < 22 ? 30 : 10 }  // a near object covers the left part of the box
        }
        let map = DisparityMap(values: img, referenceWidth: 40, referenceHeight: 40)
        let box = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        #expect(map.robustDisparity(in: box, previous: 10) == 10)
        #expect(map.robustDisparity(in: box, previous: nil) == 30)
    }

    @Test func testSalientObjectIsTheSubjectUnderThePoint() throws {
        var cfg = SyntheticScene.Configuration(width: 320, height: 180, fps: 15, seed: 1)
        cfg.subjectCount = 1
        let scene = SyntheticScene(cfg)
        // A frame where the subject is fully inside.
        let f = try #require((0..<scene.frameCount).first { f in
            scene.subjects(at: scene.time(ofFrame: f)).contains { $0.body.x > 0.15 && $0.body.x + $0.body.width < 0.85 }
        })
        let s = scene.subjects(at: scene.time(ofFrame: f))[0]
        let l = Image(width: 320, height: 180, format: .i420), r = Image(width: 320, height: 180, format: .i420)
        let truth = Image(width: 320, height: 180, format: .float32)
        scene.render(frame: f, left: l, right: r, groundTruth: truth)
        let map = DisparityMap(values: truth, referenceWidth: 320, referenceHeight: 180)
        let found = try #require(SalientObjectFinder().find(atNormalized: s.body.x + s.body.width / 2, s.body.y + s.body.height * 0.5,
                                                             disparity: map, luma: l))
        #expect(abs(found.disparity - s.disparity) < 0.1 * s.disparity)
        #expect(ObjectTracker.iou(found.bounds, s.body) > 0.5, "\(found.bounds) vs \(s.body)")
        // Tracked as a salient object with a new ID.
        var tracker = ObjectTracker()
        let id = tracker.addSalientObject(bounds: found.bounds, disparity: found.disparity)
        #expect(tracker.report().contains { $0.id == id && $0.type == .salientObject })
    }
}

@Suite struct OptimalAssignmentTests {
    @Test func beatsGreedyWhereGreedyStealsABox() {
        // Greedy takes the best pair (0.9) and strands track 1; the optimum pairs both (0.85 + 0.8).
        let pairs = OptimalAssignment.maximise([[0.9, 0.85], [0.8, nil]])
        #expect(pairs.map { [$0.row, $0.column] } == [[0, 1], [1, 0]])
    }

    @Test func rectangularForbiddenAndEmpty() {
        #expect(OptimalAssignment.maximise([]).isEmpty)
        #expect(OptimalAssignment.maximise([[nil, nil]]).isEmpty)
        let wide = OptimalAssignment.maximise([[0.1, 0.5, 0.3]])
        #expect(wide.map { [$0.row, $0.column] } == [[0, 1]])
        let tall = OptimalAssignment.maximise([[0.2], [0.7], [nil]])
        #expect(tall.map { [$0.row, $0.column] } == [[1, 0]])
    }

    @Test func matchesBruteForceOnRandomMatrices() {
        var random = SeededRandom(seed: 12345)
        func next() -> Double { random.unit() }
        func permutations(_ n: Int) -> [[Int]] {
            if n == 0 { return [[]] }
            return permutations(n - 1).flatMap { p in (0...p.count).map { var q = p; q.insert(n - 1, at: $0); return q } }
        }
        for _ in 0..<200 {
            let n = 1 + Int(next() * 5)
            let m: [[Double?]] = (0..<n).map { _ in (0..<n).map { _ in next() < 0.25 ? nil : next() } }
            var best = 0.0
            for perm in permutations(n) {
                best = max(best, perm.enumerated().reduce(0.0) { $0 + (m[$1.offset][$1.element] ?? 0) })
            }
            let pairs = OptimalAssignment.maximise(m)
            let total = pairs.reduce(0.0) { $0 + m[$1.row][$1.column]! }
            #expect(abs(total - best) < 1e-9, "\(m)")
            #expect(Set(pairs.map(\.row)).count == pairs.count && Set(pairs.map(\.column)).count == pairs.count)
        }
    }
}

@Suite struct TrackerReidentificationTests {
    static func face(x: Double, width: Double = 0.08, disparity: Double) -> TrackerObservation {
        TrackerObservation(type: .humanFace, bounds: NormalizedRect(x: x, y: 0.2, width: width, height: 0.15), confidence: 0.9,
                           facing: .towards, disparity: disparity)
    }

    @Test func aFaceLeavingThroughTheLeftEdgeKeepsItsIDDespiteTheBordersDisparity() {
        var tracker = ObjectTracker()
        var ids = Set<Int>()
        // Walking left at 50 px disparity; inside the stereo border the matcher reads the wall (5 px),
        // and the box shrinks as the frame's edge clips it.
        for k in 0..<12 {
            let x = max(0, 0.2 - 0.02 * Double(k)), w = min(0.08, 0.08 + (0.2 - 0.02 * Double(k)))
            let d = x < 0.1 ? 5.0 : 50.0
            ids.formUnion(tracker.update([Self.face(x: x, width: max(0.02, w), disparity: d)]).map(\.id))
        }
        #expect(ids == [1])
    }

    @Test func aFaceLeavingThroughTheLeftEdgeKeepsItsDepthWhereTheMapReadsTheWall() throws {
        // The map holds the face at 50 px where it is, except in the stereo border (x < 0.1),
        // where the matcher filled in the wall (5 px); detections every third frame.
        func map(faceX: Double) -> DisparityMap {
            let values = ImagePool().makeImage(width: 64, height: 36, format: .float32)
            for y in 0..<36 {
                let row = values.plane(0).row(y, as: Float.self)
                for x in 0..<64 {
                    let u = (Double(x) + 0.5) / 64, v = (Double(y) + 0.5) / 36
                    row[x] = u >= 0.1 && u >= faceX && u < faceX + 0.08 && v >= 0.2 && v < 0.35 ? 50 : 5
                }
            }
            return DisparityMap(values: values, referenceWidth: 640, referenceHeight: 360)
        }
        var tracker = ObjectTracker()
        var last: Double?
        for k in 0..<11 {
            let x = 0.2 - 0.02 * Double(k), m = map(faceX: x)
            let visible = NormalizedRect(x: max(0, x), y: 0.2, width: 0.08 + min(0, x), height: 0.15)
            let obs = TrackerObservation(type: .humanFace, bounds: visible, confidence: 0.9, facing: .towards, disparity: nil)
            let out = k % 3 == 0 ? tracker.update([obs], disparity: m) : tracker.predict(disparity: m)
            if let d = out.first?.disparity { last = d }
        }
        // At x 0.02 the whole box reads the wall; the face is still 50 px away.
        let held = try #require(last)
        #expect(abs(held - 50) < 5, "the face took the wall's disparity: \(held)")
    }

    /// A 64×36 map: the wall at 10 px, a far head at 30 px over x 0.5…0.58 and a near head at
    /// 48 px over x `near`…`near`+0.12, in front of it.
    static func map(near: Double) -> DisparityMap {
        let values = ImagePool().makeImage(width: 64, height: 36, format: .float32)
        for y in 0..<36 {
            let row = values.plane(0).row(y, as: Float.self)
            for x in 0..<64 {
                let u = (Double(x) + 0.5) / 64
                row[x] = u >= near && u < near + 0.12 && y < 16 ? 48 : u >= 0.5 && u < 0.58 && y < 16 ? 30 : 10
            }
        }
        return DisparityMap(values: values, referenceWidth: 640, referenceHeight: 360)
    }

    @Test func aFaceHiddenBySomeoneNearerPassingInFrontKeepsItsID() {
        // A far face (30 px) stands at x 0.5; a near face (48 px) walks across in front of it,
        // detections every third frame as the detector node runs them.
        var tracker = ObjectTracker()
        let far = { Self.face(x: 0.5, disparity: 30) }
        var farIDs = Set<Int>()
        for k in 0..<30 {
            let nearX = 0.2 + 0.02 * Double(k)
            let map = Self.map(near: nearX)
            let hidden = nearX + 0.12 > 0.5 && nearX < 0.58
            var obs = [Self.face(x: nearX + 0.02, disparity: 48)]
            if !hidden { obs.append(far()) }
            let out = k % 3 == 0 ? tracker.update(obs, disparity: map) : tracker.predict(disparity: map)
            for d in out where abs(d.bounds.x - 0.5) < 0.02 && !hidden && k % 3 == 0 { farIDs.insert(d.id) }
        }
        #expect(farIDs.count == 1, "the far face came back with a new ID: \(farIDs)")
    }

    @Test func aMissedFaceWithSomeoneNearerInItsBoxIsNotReported() {
        var tracker = ObjectTracker()
        for _ in 0..<3 { _ = tracker.update([Self.face(x: 0.5, disparity: 30)], disparity: Self.map(near: 0.1)) }
        // Missed once with nobody in front: reported where it was (the detector blinked).
        #expect(tracker.update([], disparity: Self.map(near: 0.1)).map(\.id) == [1])
        // Missed again with a nearer head (48 px) over its box: hidden, not reported, still kept.
        #expect(tracker.update([], disparity: Self.map(near: 0.48)).isEmpty)
        #expect(tracker.trackCount == 1)
        // Out again: the same ID.
        #expect(tracker.update([Self.face(x: 0.5, disparity: 30)], disparity: Self.map(near: 0.1)).map(\.id) == [1])
    }

    @Test func aFaceBackAfterAFewMissedRoundsNearWhereItWasKeepsItsID() {
        var tracker = ObjectTracker()
        for _ in 0..<3 { _ = tracker.update([Self.face(x: 0.4, disparity: 40)]) }
        for _ in 0..<5 { _ = tracker.update([]) }  // turned away: no face for five rounds
        // Back 0.09 to the right: no overlap with where it was, within 1.5 box sizes.
        let back = tracker.update([Self.face(x: 0.49, disparity: 40)])
        #expect(back.map(\.id) == [1])
        // Somebody else at another depth, as near, is a new subject.
        for _ in 0..<5 { _ = tracker.update([]) }
        let other = tracker.update([Self.face(x: 0.45, disparity: 15)])
        #expect(other.map(\.id) == [2])
    }
}
