// HOG people tests: the feature map's orientation bins and normalisation, people found in the
// wide synthetic shot against its truth, a clear error for a wrong coefficient file, the
// synthetic walkers standing on the floor, and the tracker's rule that a track a HOG box
// starts is reported only while it moves.
import CineInference
import CineMedia
@testable import CineVision
import Foundation
import Testing

@Suite("HOG people")
struct HOGPersonTests {
    /// A 32 × 32 plane filled by `value(x, y)`.
    private func plane(_ value: (Int, Int) -> UInt8) -> [UInt8] {
        (0..<32 * 32).map { value($0 % 32, $0 / 32) }
    }

    @Test func aVerticalEdgeFillsTheHorizontalBinsAndAHorizontalEdgeTheVerticalBin() {
        let vertical = plane { x, _ in x < 16 ? 40 : 200 }, horizontal = plane { _, y in y < 16 ? 40 : 200 }
        for (pixels, bins) in [(vertical, Set([0, 8])), (horizontal, Set([4]))] {
            pixels.withUnsafeBufferPointer { p in
                let map = HOGFeatureMap([p.baseAddress!], width: 32, height: 32, stride: 32)
                #expect(map.blocksWide == 3 && map.blocksHigh == 3)
                // The middle block straddles the edge: all its energy in the edge's bins.
                let b = map.block(1, 1)
                var inBins: Float = 0, total: Float = 0, norm: Float = 0
                for i in 0..<36 {
                    total += b[i]
                    norm += b[i] * b[i]
                    if bins.contains(i % 9) { inBins += b[i] }
                }
                #expect(total > 0 && inBins / total > 0.99, "\(bins): \(inBins) of \(total)")
                #expect(norm <= 1.0001)  // L2-Hys
                for i in 36..<HOGFeatureMap.stride { #expect(b[i] == 0) }
            }
        }
    }

    @Test func findsMostWalkersOfAWideShotAndNothingElse() throws {
        var c = SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1)
        c.wide = true
        c.subjectCount = 6
        let scene = SyntheticScene(c)
        let detector = try HOGPersonDetector()
        var p = HOGPersonDetector.Parameters()
        p.threads = 2
        var found = 0, people = 0, boxes = 0, wrong = 0
        for frame in [60, 180, 300, 420] {
            let l = Image(width: 1280, height: 720, format: .i420), r = Image(width: 1280, height: 720, format: .i420)
            scene.render(frame: frame, left: l, right: r, groundTruth: nil)
            let walkers = scene.subjects(at: scene.time(ofFrame: frame))
            let whole = walkers.filter { s in
                s.body.x > 0.001 && s.body.x + s.body.width < 0.999 && s.body.height * 720 >= 48
                    && !walkers.contains { $0.disparity > s.disparity && $0.body.share(inside: s.body) > 0 && s.body.share(inside: $0.body) > 0.35 }
            }
            let detections = detector.detect(l, parameters: p)
            people += whole.count
            found += whole.filter { s in detections.contains { ObjectTracker.iou($0.bounds, s.body) >= 0.5 } }.count
            boxes += detections.count
            wrong += detections.filter { d in !walkers.contains { ObjectTracker.iou(d.bounds, $0.body) >= 0.3 } }.count
        }
        // One frame at a time, no tracking: the bench measures the tracked figures.
        #expect(people >= 15)
        #expect(Double(found) >= 0.6 * Double(people), "\(found) of \(people)")
        #expect(Double(wrong) <= 0.25 * Double(boxes), "\(wrong) of \(boxes) boxes on no one")
    }

    @Test func windowsOfAHeightNoOneStandingThereHasAreDroppedBeforeGrouping() throws {
        // A walker's three windows, and a chain of ever taller windows, each like the one before
        // (as over a walker and the sign above them): grouped, the chain stretches the walker's box.
        let detector = try HOGPersonDetector()
        var round = detector.begin(Image(width: 640, height: 480, format: .gray8))
        let walker = (0..<3).map { CascadeRect(x: 100 + $0, y: 100, width: 64, height: 128) }
        let chain = (1...5).map { k in CascadeRect(x: 100, y: 100 - 10 * k, width: 64 + 8 * k, height: 128 + 16 * k) }
        round.hits = (walker + chain).map { ($0, Float(1)) }
        round.done = round.parts
        let tall = HOGPersonDetector.person(in: walker[0], width: 640, height: 480).height
        let chained = try #require(detector.finish(round).first)
        #expect(chained.bounds.height > 1.15 * tall, "\(chained)")
        // Windows whose person is more than 15 % taller than the walker are refused: the walker's own box.
        let alone = try #require(detector.finish(round, keeping: { $0.height <= 1.15 * tall }).first)
        #expect(abs(alone.bounds.height / tall - 1) < 0.1, "\(alone)")
    }

    @Test func twoPeopleSideBySideBridgedByWeakWindowsAreTwoPeople() throws {
        // Sure windows on two people 40 px apart (a person is 34 px wide in a 64-px window), and
        // weak windows between them, each like its neighbours: one chain, one group between them.
        let detector = try HOGPersonDetector()
        let left = (0..<4).map { (CascadeRect(x: 100 + 2 * $0, y: 100, width: 64, height: 128), Float(2)) }
        let right = (0..<4).map { (CascadeRect(x: 140 + 2 * $0, y: 100, width: 64, height: 128), Float(2)) }
        let bridge = (1...4).map { (CascadeRect(x: 106 + 8 * $0, y: 100, width: 64, height: 128), Float(0.2)) }
        var hits = left + bridge + right
        func centres(_ p: HOGPersonDetector.Parameters) -> [Double] {
            var round = detector.begin(Image(width: 640, height: 480, format: .gray8), parameters: p)
            round.hits = hits
            round.done = round.parts
            return detector.finish(round).map { ($0.bounds.x + $0.bounds.width / 2) * 640 }.sorted()
        }
        var chained = HOGPersonDetector.Parameters()
        chained.peakGap = 0
        let one = centres(chained)
        #expect(one.count == 1 && abs(one[0] - 156) < 4, "\(one)")
        // Split at the peaks: each person's box is on them (centres 135 and 175).
        let two = centres(HOGPersonDetector.Parameters())
        #expect(two.count == 2, "\(two)")
        if two.count == 2 { #expect(abs(two[0] - 135) < 5 && abs(two[1] - 175) < 5, "\(two)") }
        // One person's sure windows, a few pixels apart, stay one person.
        hits = left + bridge.prefix(1)
        let single = centres(HOGPersonDetector.Parameters())
        #expect(single.count == 1, "\(single)")
    }

    @Test func aCoefficientFileOfTheWrongSizeIsAClearError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hog-\(UUID().uuidString).f32")
        try Data(count: 100).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let e = #expect(throws: InferenceError.self) { try HOGPersonDetector(file: url.path) }
        #expect(e?.description.contains(url.path) == true && e?.description.contains("3781") == true, "\(String(describing: e))")
        #expect(throws: InferenceError.self) { try HOGPersonDetector(file: "/nonexistent/people.f32") }
    }

    @Test func wideWalkersStandOnTheFloorAndAre50To150PixelsTall() {
        var c = SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 2)
        c.wide = true
        c.subjectCount = 6
        let scene = SyntheticScene(c)
        var seen = 0
        for frame in stride(from: 0, to: scene.frameCount, by: 30) {
            for s in scene.subjects(at: scene.time(ofFrame: frame)) where s.body.x > 0.001 && s.body.x + s.body.width < 0.999 {
                seen += 1
                let bottom = (s.body.y + s.body.height) * 720, floor = 360 + scene.focalLengthPixels * 1.45 / s.depth
                #expect(abs(bottom - floor) < 2, "walker \(s.id): feet at \(bottom), floor at \(floor)")
                #expect(s.body.height * 720 >= 45 && s.body.height * 720 <= 160, "walker \(s.id): \(s.body.height * 720) px")
                #expect(s.depth >= 12 && s.depth <= 38)
            }
        }
        #expect(seen > 60)
    }
}

@Suite("ObjectTracker: tracks that must move")
struct MovingTrackTests {
    private func walker(_ x: Double) -> TrackerObservation {
        var o = TrackerObservation(type: .humanBody, bounds: NormalizedRect(x: x, y: 0.4, width: 0.02, height: 0.08), confidence: 0.9)
        o.mustMove = true
        return o
    }

    @Test func aBoxThatNeverMovesIsNeverReported() {
        var tracker = ObjectTracker()
        for _ in 0..<40 { #expect(tracker.update([walker(0.3)]).isEmpty) }
        // The same box from a detector that needs no motion confirms it at once.
        var o = walker(0.3)
        o.mustMove = false
        #expect(tracker.update([o]).count == 1)
    }

    @Test func aBoxFlippingBetweenTwoSizesOnATripodIsNotReported() {
        var tracker = ObjectTracker()
        let small = NormalizedRect(x: 0.567, y: 0.243, width: 0.028, height: 0.095)
        let large = NormalizedRect(x: 0.56, y: 0.27, width: 0.042, height: 0.157)
        var reported = 0
        for round in 0..<60 {
            var o = TrackerObservation(type: .humanBody, bounds: round % 7 < 3 ? small : large, confidence: 0.8)
            o.mustMove = true
            reported += tracker.update([o]).count
        }
        #expect(reported == 0)
    }

    @Test func aWalkerIsReportedOnceItHasMovedAndNotOnceItHasStoodStillAWhile() throws {
        var c = ObjectTracker.Configuration()
        c.stillRounds = 5
        var tracker = ObjectTracker(configuration: c)
        #expect(tracker.update([walker(0.3)]).isEmpty)
        #expect(tracker.update([walker(0.303)]).isEmpty)  // 15 % of its width
        // Walking a third of its width a round: reported once the box has moved half its width.
        var x = 0.303, reported: Detections = []
        for _ in 0..<4 where reported.isEmpty {
            x += 0.007
            reported = tracker.update([walker(x)])
        }
        let id = try #require(reported.first?.id, "never reported while walking")
        // Standing still: reported for about 5 more rounds, then not.
        var still = 0
        while tracker.update([walker(x)]).map(\.id) == [id] { still += 1; if still > 20 { break } }
        #expect(still >= 4 && still <= 7, "reported for \(still) rounds standing still")
        #expect(tracker.update([walker(x)]).isEmpty)
        // Walks on: the same ID again.
        var again: Detections = []
        for _ in 0..<4 where again.isEmpty {
            x += 0.007
            again = tracker.update([walker(x)])
        }
        #expect(again.map(\.id) == [id])
    }
}
