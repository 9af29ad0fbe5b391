// Tests of tracking what a user taps: the synthetic camera's props and their truth, the finder
// that gives a tapped object its extent, and the appearance tracker that follows it and says
// when it is lost.
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct TapToTrackTests {
    static func propScene(seed: UInt64 = 1, width: Int = 640, height: Int = 360) -> SyntheticScene {
        var c = SyntheticScene.Configuration(width: width, height: height, seed: seed)
        c.props = true
        return SyntheticScene(c)
    }

    @Test func propsAreDrawnWhereTheTruthSaysAtTheirDisparity() throws {
        let scene = Self.propScene()
        var checked = 0
        for frame in stride(from: 30, to: 600, by: 30) {
            let rendered = scene.renderFrame(frame)
            for p in scene.props(at: scene.time(ofFrame: frame)) where p.visibleFraction == 1 {
                // The box's centre shows the prop: the truth image holds its disparity there.
                let x = Int((p.bounds.x + p.bounds.width / 2) * 640), y = Int((p.bounds.y + p.bounds.height / 2) * 360)
                #expect(abs(Double(rendered.disparity(x, y)) - p.disparity) < 0.01, "frame \(frame) \(p.kind)")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }

    @Test func propsAreOffByDefaultAndLeaveTheFramesAlone() {
        let plain = SyntheticScene(.init(width: 160, height: 90, seed: 2))
        #expect(plain.props(at: 5).isEmpty)
        var c = SyntheticScene.Configuration(width: 160, height: 90, seed: 2)
        c.props = true
        let with = SyntheticScene(c)
        #expect(with.props(at: 5).count >= 1)
        // The props change the frame (the ball is on the sideboard from the start).
        #expect(planeBytes(plain.renderFrame(150).left) != planeBytes(with.renderFrame(150).left))
    }

    @Test func theBallRollsAndTheCupWalksWithItsCarrier() throws {
        let scene = Self.propScene()
        let early = try #require(scene.props(at: 1).first { $0.kind == .ball })
        let late = try #require(scene.props(at: 8).first { $0.kind == .ball })
        #expect(late.bounds.x - early.bounds.x > 0.2, "the ball rolled to the right end")
        let cups = (0..<600).compactMap { scene.props(at: scene.time(ofFrame: $0)).first { $0.kind == .cup } }
        #expect(cups.count > 60)
        #expect(abs(cups.last!.bounds.x - cups.first!.bounds.x) > 0.5, "carried across the frame")
    }

    @Test func aTapFindsTheBallWithoutADisparityMap() throws {
        let scene = Self.propScene(width: 1280, height: 720)
        let frame = 30
        let ball = try #require(scene.props(at: scene.time(ofFrame: frame)).first { $0.kind == .ball })
        let left = scene.renderFrame(frame).left
        let found = try #require(TappedObjectFinder().find(
            at: NormalizedPoint(x: ball.bounds.x + ball.bounds.width / 2, y: ball.bounds.y + ball.bounds.height / 2), in: left))
        #expect(ObjectTracker.iou(found.bounds, ball.bounds) >= 0.5, "found \(found.bounds), truth \(ball.bounds)")
        // A point outside the frame finds nothing.
        #expect(TappedObjectFinder().find(at: NormalizedPoint(x: 1.2, y: 0.5), in: left) == nil)
    }

    /// Follows `kind` from its first fully visible frame and scores it against the truth.
    static func follow(_ kind: SyntheticProp.Kind, seed: UInt64, frames: Int = 600) throws -> PropScore {
        let scene = propScene(seed: seed, width: 1280, height: 720)
        let truth = (0..<frames).map { f in scene.props(at: scene.time(ofFrame: f)).first { $0.kind == kind } }
        let start = try #require((1..<frames).first { (truth[$0]?.visibleFraction ?? 0) >= 0.99 })
        var tracker = try #require(AppearanceTracker(image: scene.renderFrame(start).left, bounds: truth[start]!.bounds))
        var score = PropScore()
        var hiddenAt: Int?
        for f in (start + 1)..<frames {
            let o = tracker.update(scene.renderFrame(f).left)
            let isLost: Bool = if case .lost = o.status { true } else { false }
            let seen = truth[f]?.visibleFraction ?? 0
            if seen >= 0.75, let t = truth[f] {
                score.visible += 1
                if !isLost && ObjectTracker.iou(o.bounds, t.bounds) >= 0.5 { score.overlapping += 1 }
            }
            if seen < 0.02 {
                if hiddenAt == nil { hiddenAt = f; score.occlusions += 1 }
                if isLost, let h = hiddenAt, h >= 0 {
                    if f - h <= 5 { score.reportedInTime += 1 }
                    hiddenAt = -1
                }
            } else {
                hiddenAt = nil
            }
        }
        return score
    }

    struct PropScore {
        var visible = 0, overlapping = 0, occlusions = 0, reportedInTime = 0
    }

    @Test func theTrackerFollowsTheRollingBallAndSaysWhenItIsHidden() throws {
        let s = try Self.follow(.ball, seed: 1)
        #expect(s.visible > 200)
        #expect(Double(s.overlapping) >= 0.9 * Double(s.visible), "\(s)")
        #expect(s.reportedInTime == s.occlusions, "\(s)")
    }

    @Test func theTrackerFollowsTheCarriedCupUntilItLeaves() throws {
        let s = try Self.follow(.cup, seed: 2)
        #expect(s.visible > 60)
        #expect(Double(s.overlapping) >= 0.9 * Double(s.visible), "\(s)")
        #expect(s.occlusions >= 1, "the cup leaves the frame with its carrier")
        #expect(s.reportedInTime == s.occlusions, "\(s)")
    }

    @Test func aFlatOrTinyBoxCannotBeTracked() {
        let flat = Image(width: 64, height: 64, format: .i420)
        flat.plane(0).fill(byte: 100)
        #expect(AppearanceTracker(image: flat, bounds: NormalizedRect(x: 0.2, y: 0.2, width: 0.4, height: 0.4)) == nil)
        #expect(AppearanceTracker(image: flat, bounds: NormalizedRect(x: 0.2, y: 0.2, width: 0.05, height: 0.05)) == nil)
    }
}
