// StandingHeights: the height of a person standing at each row, learnt from walkers of the wide
// synthetic shot, predicts the camera's true boxes; a box a post or a second person makes too
// tall is refused even when a third of what it learnt was such boxes; it says nothing before it
// knows, off a floor, or for feet it cannot see; and a box is placed half-way to its height.
import CineMedia
import CineVision
import Testing

@Suite struct StandingHeightsTests {
    /// A box `height` tall standing with its feet at `foot`, 0.4 of its height wide, at `x`.
    static func box(foot: Double, height: Double, x: Double = 0.5) -> NormalizedRect {
        NormalizedRect(x: x, y: foot - height, width: 0.4 * height, height: height)
    }

    /// A floor seen from a still camera: a person with feet at row `foot` is this tall.
    static func floor(_ foot: Double) -> Double { 0.3 * (foot - 0.35) }

    @Test func theWideShotsWalkersGiveTheHeightOfEveryTrueBody() {
        var c = SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 2)
        c.wide = true
        c.subjectCount = 6
        let scene = SyntheticScene(c)
        func whole(_ f: Int) -> [SyntheticSubject] {
            scene.subjects(at: scene.time(ofFrame: f)).filter { $0.body.x > 0 && $0.body.x + $0.body.width < 1 }
        }
        var heights = StandingHeights()
        for f in stride(from: 0, to: 150, by: 3) { heights.learn(whole(f).map { ($0.id, $0.body) }) }
        var checked = 0
        for f in stride(from: 300, to: 600, by: 10) {
            for s in whole(f) {
                let b = s.body
                guard let h = heights.height(atFoot: b.y + b.height) else { continue }
                #expect(abs(h / b.height - 1) < 0.12, "frame \(f), walker \(s.id): \(h) for \(b.height)")
                #expect(heights.allows(b))
                let doubled = NormalizedRect(x: b.x - b.width / 2, y: b.y - b.height, width: 2 * b.width, height: 2 * b.height)
                #expect(!heights.allows(doubled), "a box twice as tall at frame \(f)")
                checked += 1
            }
        }
        #expect(checked > 50)
    }

    @Test func aThirdOfTallBoxesAmongTheLearntDoNotMoveTheLine() {
        var heights = StandingHeights()
        for round in 0..<30 {
            var seen: [(id: Int, bounds: NormalizedRect)] = []
            for walker in 0..<4 {
                let foot = 0.5 + 0.1 * Double(walker) + 0.002 * Double(round)
                seen.append((walker, Self.box(foot: foot, height: Self.floor(foot))))
            }
            // Two tall false tracks: a walker and a lamp post above them.
            for post in 0..<2 {
                let foot = 0.55 + 0.2 * Double(post)
                seen.append((10 + post, Self.box(foot: foot, height: 2.4 * Self.floor(foot))))
            }
            heights.learn(seen)
        }
        for foot in [0.5, 0.65, 0.8, 0.9] {
            let h = try? #require(heights.height(atFoot: foot))
            #expect(abs((h ?? 0) / Self.floor(foot) - 1) < 0.02, "feet at \(foot)")
            #expect(heights.allows(Self.box(foot: foot, height: 1.2 * Self.floor(foot))))
            #expect(!heights.allows(Self.box(foot: foot, height: 1.5 * Self.floor(foot))))
            #expect(!heights.allows(Self.box(foot: foot, height: 0.5 * Self.floor(foot))))
        }
        // Feet cut by the frame's bottom edge: the height says nothing about the person.
        #expect(heights.allows(Self.box(foot: 1, height: 0.9)))
        // Farther from the rows seen (0.5–0.96) than half their span: no word either.
        #expect(heights.height(atFoot: 0.2) == nil)
        #expect(heights.allows(Self.box(foot: 0.2, height: 0.25)))
    }

    @Test func itSaysNothingBeforeItKnowsNorOffAFloor() {
        var early = StandingHeights()
        // Many boxes, but of two walkers only.
        for round in 0..<40 {
            early.learn([(1, Self.box(foot: 0.6, height: Self.floor(0.6))),
                         (2, Self.box(foot: 0.8 + 0.001 * Double(round), height: Self.floor(0.8)))])
        }
        #expect(early.height(atFoot: 0.7) == nil)
        #expect(early.allows(Self.box(foot: 0.7, height: 0.5)))
        // Walkers whose heights have nothing to do with their feet (stairs, a camera moving).
        var random = SeededRandom(seed: 7)
        var stairs = StandingHeights()
        for _ in 0..<60 {
            stairs.learn((0..<4).map { w in
                let foot = random.uniform(0.4, 0.95)
                return (w, Self.box(foot: foot, height: random.uniform(0.05, 0.4)))
            })
        }
        #expect(stairs.height(atFoot: 0.7) == nil)
    }

    @Test func aBoxIsPlacedHalfWayToTheHeightOfThoseStandingThere() {
        var heights = StandingHeights()
        for round in 0..<20 {
            heights.learn((0..<4).map { w in
                let foot = 0.5 + 0.12 * Double(w) + 0.001 * Double(round)
                return (w, Self.box(foot: foot, height: Self.floor(foot)))
            })
        }
        let short = Self.box(foot: 0.8, height: 0.75 * Self.floor(0.8), x: 0.3)
        let placed = heights.placed(short)
        // Half-way by ratio: √0.75 of the line's height; the feet and the middle stay.
        #expect(abs(placed.height / Self.floor(0.8) - 0.75.squareRoot()) < 0.01)
        #expect(abs(placed.y + placed.height - 0.8) < 1e-9)
        #expect(abs((placed.x + placed.width / 2) - (short.x + short.width / 2)) < 1e-9)
        #expect(abs(placed.width / placed.height - short.width / short.height) < 1e-9)
        // Judged: the short box placed, a far too tall one left out, a face untouched.
        let face = TrackerObservation(type: .humanFace, bounds: Self.box(foot: 0.5, height: 0.05), confidence: 0.9, facing: .towards)
        let tall = TrackerObservation(type: .humanBody, bounds: Self.box(foot: 0.7, height: 2 * Self.floor(0.7)), confidence: 0.9,
                                      facing: .unknown)
        let body = TrackerObservation(type: .humanBody, bounds: short, confidence: 0.9, facing: .unknown)
        let judged = heights.judged([face, tall, body])
        #expect(judged.count == 2)
        #expect(judged.first?.bounds == face.bounds)
        #expect(judged.last?.bounds == placed)
    }
}
