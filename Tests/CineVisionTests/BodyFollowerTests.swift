// BodyFollower and the ObjectTracker rules it came with: a walker of the wide synthetic shot the
// detector stops seeing is kept on their own box by their look, and not once someone covers
// them; a body box inside a sure one is not reported twice; a sure first window is reported at
// once.
import CineMedia
import CineVision
import Testing

@Suite struct BodyFollowerTests {
    static let scene: SyntheticScene = {
        var c = SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1)
        c.wide = true
        c.subjectCount = 6
        return SyntheticScene(c)
    }()

    static func frame(_ index: Int) -> Image {
        let l = Image(width: 1280, height: 720, format: .i420), r = Image(width: 1280, height: 720, format: .i420)
        scene.render(frame: index, left: l, right: r, groundTruth: nil)
        return l
    }

    /// A walker who stays whole, unhidden, apart from the others and walking over frames
    /// 30–90, with their true box at each frame.
    static func loneWalker() -> (id: Int, box: (Int) -> NormalizedRect)? {
        func walkers(_ f: Int) -> [SyntheticSubject] { scene.subjects(at: scene.time(ofFrame: f)) }
        let candidates = walkers(30).map(\.id).filter { id in
            stride(from: 30, through: 90, by: 3).allSatisfy { f in
                let all = walkers(f)
                guard let s = all.first(where: { $0.id == id }) else { return false }
                let b = s.body, m = b.width
                let around = NormalizedRect(x: b.x - m, y: b.y, width: b.width + 2 * m, height: b.height)
                return b.x > 0.01 && b.x + b.width < 0.99 && b.height * 720 >= 60
                    && !all.contains { $0.id != id && ObjectTracker.iou($0.body, around) > 0 }
            }
        }
        let moving = candidates.filter { id in
            let a = walkers(30).first { $0.id == id }!.body, b = walkers(90).first { $0.id == id }!.body
            return abs(a.x - b.x) > 2 * a.width
        }
        guard let id = moving.first else { return nil }
        return (id, { f in walkers(f).first { $0.id == id }!.body })
    }

    /// A detector's box around a true one: a little wider and lower, as HOG's are.
    static func detected(_ b: NormalizedRect) -> TrackerObservation {
        let box = NormalizedRect(x: b.x - 0.08 * b.width, y: b.y - 0.04 * b.height, width: 1.16 * b.width, height: 1.08 * b.height)
        var o = TrackerObservation(type: .humanBody, bounds: box, confidence: 0.9)
        o.mustMove = true
        return o
    }

    @Test func aWalkerTheDetectorMissesIsKeptOnTheirBoxByTheirLook() throws {
        let walker = try #require(Self.loneWalker(), "no lone walker in the wide shot")
        // Seen every round (every 3 frames) from frame 30 to 54, then missed up to frame 90.
        for follow in [true, false] {
            var tracker = ObjectTracker()
            var follower = BodyFollower()
            var id: Int?
            for f in stride(from: 30, through: 90, by: 3) {
                let image = Self.frame(f)
                let reported = tracker.update(f <= 54 ? [Self.detected(walker.box(f))] : [])
                if follow { follower.round(image, tracker: &tracker) }
                if f == 54 { id = try #require(reported.first?.id) }
            }
            let last = tracker.report().first { $0.id == id }
            if follow {
                // Twelve rounds on, still reported under the same ID, on the walker.
                let box = try #require(last, "the followed walker is no longer reported")
                #expect(ObjectTracker.iou(box.bounds, walker.box(90)) >= 0.5, "\(box.bounds) vs \(walker.box(90))")
            } else {
                #expect(last == nil, "without the follower the track coasts 4 rounds, not 12")
            }
        }
    }

    @Test func aWalkerSomeoneCoversIsNotFollowed() throws {
        let walker = try #require(Self.loneWalker(), "no lone walker in the wide shot")
        var tracker = ObjectTracker()
        var follower = BodyFollower()
        var followed: [Int] = []
        for f in stride(from: 30, through: 75, by: 3) {
            let image = Self.frame(f)
            if f > 54 {
                // Someone in a flat grey coat steps in front of the walker.
                let b = walker.box(f)
                image.fill(x: Int((b.x - b.width) * 1280), y: Int((b.y - 0.1 * b.height) * 720), width: Int(3 * b.width * 1280),
                           height: Int(1.2 * b.height * 720), color: VideoColor(y: 110, u: 128, v: 128))
            }
            _ = tracker.update(f <= 54 ? [Self.detected(walker.box(f))] : [])
            followed += follower.round(image, tracker: &tracker)
        }
        #expect(followed.isEmpty, "followed onto a flat coat: \(followed)")
        #expect(tracker.report().isEmpty)
    }

    static func body(_ x: Double, _ y: Double, _ w: Double, _ h: Double, confidence: Double) -> TrackerObservation {
        TrackerObservation(type: .humanBody, bounds: NormalizedRect(x: x, y: y, width: w, height: h), confidence: confidence)
    }

    @Test func aBodyInsideASureOneIsReportedOnce() {
        // A sure walker and a window on their legs (surer still, as windows on legs can be).
        var tracker = ObjectTracker()
        var reported = Detections()
        for _ in 0..<3 {
            reported = tracker.update([Self.body(0.4, 0.3, 0.05, 0.2, confidence: 0.9), Self.body(0.405, 0.42, 0.04, 0.08, confidence: 0.95)])
        }
        #expect(reported.count == 1 && reported.first?.bounds.height ?? 0 > 0.15, "\(reported)")
        // An unsure loose window around someone a sure window holds: the sure one is reported.
        tracker = ObjectTracker()
        for _ in 0..<3 {
            reported = tracker.update([Self.body(0.6, 0.1, 0.12, 0.5, confidence: 0.3), Self.body(0.63, 0.25, 0.05, 0.2, confidence: 0.9)])
        }
        #expect(reported.count == 1 && reported.first?.bounds.height ?? 1 < 0.3, "\(reported)")
        // Two people side by side: both.
        tracker = ObjectTracker()
        for _ in 0..<3 {
            reported = tracker.update([Self.body(0.2, 0.3, 0.05, 0.2, confidence: 0.9), Self.body(0.26, 0.3, 0.05, 0.2, confidence: 0.9)])
        }
        #expect(reported.count == 2, "\(reported)")
    }

    @Test func aSureFirstWindowIsReportedAtOnceAndMustThenMove() {
        for confidence in [0.999, 0.9] {
            var tracker = ObjectTracker()
            var o = Self.body(0.4, 0.3, 0.05, 0.2, confidence: confidence)
            o.mustMove = true
            let first = tracker.update([o])
            #expect(first.count == (confidence >= tracker.configuration.sureConfidence ? 1 : 0), "\(confidence): \(first)")
            // Standing still: gone after the rounds a still track is kept.
            var last = first
            for _ in 0...tracker.configuration.stillRounds { last = tracker.update([o]) }
            #expect(last.isEmpty, "\(confidence): a window that never moves is still reported")
        }
    }
}
