// Tests of SyntheticScene's story: subjects enter, cross, pass each other, turn away and leave;
// the scene loops; configurations are validated.
import CineMedia
import Testing

@testable import CineVision

@Suite struct SyntheticSceneScheduleTests {
    static let scene = SyntheticScene(.init(width: 320, height: 180, seed: 1, noise: 0))

    /// `subjects(at:)` sampled every 50 ms over one pass of the scene.
    static func timeline(_ scene: SyntheticScene) -> [(time: Double, subjects: [SyntheticSubject])] {
        stride(from: 0.0, to: scene.configuration.duration, by: 0.05).map { ($0, scene.subjects(at: $0)) }
    }

    @Test(arguments: [UInt64(1), 2, 3, 42])
    func everySubjectEntersAtAnEdgeCrossesAndLeaves(seed: UInt64) {
        let scene = SyntheticScene(.init(width: 320, height: 180, seed: seed, subjectCount: 3))
        let timeline = Self.timeline(scene)
        for id in 0..<3 {
            let seen = timeline.enumerated().compactMap { step, sample in
                sample.subjects.first { $0.id == id }.map { (step, $0) }
            }
            #expect(!seen.isEmpty, "subject \(id) never appears")
            guard let first = seen.first, let last = seen.last else { continue }
            // One continuous visit, not at the very start or end of the scene.
            #expect(last.0 - first.0 + 1 == seen.count, "subject \(id) disappears mid-scene")
            #expect(first.0 > 0 && last.0 < timeline.count - 1)
            func atEdge(_ s: SyntheticSubject) -> Bool { s.body.x <= 0.001 || s.body.x + s.body.width >= 0.999 }
            #expect(atEdge(first.1), "subject \(id) appears away from the edges: \(first.1.body)")
            #expect(atEdge(last.1), "subject \(id) vanishes away from the edges: \(last.1.body)")
            #expect(
                seen.contains { $0.1.body.x > 0.02 && $0.1.body.x + $0.1.body.width < 0.98 },
                "subject \(id) is never fully in frame")
            // It walks from one side to the other.
            let enteredLeft = first.1.body.x <= 0.001
            #expect(enteredLeft ? last.1.body.x + last.1.body.width >= 0.999 : last.1.body.x <= 0.001)
        }
    }

    @Test func twoSubjectsPassEachOtherAtDifferentDepths() {
        let scene = Self.scene
        var passes = false
        for (time, subjects) in Self.timeline(scene) where subjects.count >= 2 {
            for a in subjects {
                for b in subjects where a.depth < b.depth - 0.3 {
                    // The nearer body fully covers the farther one's centre line.
                    let centre = b.body.x + b.body.width / 2
                    guard a.body.x < centre && a.body.x + a.body.width > centre else { continue }
                    let frame = scene.renderFrame(Int((time * scene.configuration.fps).rounded()))
                    let x = Int(centre * 320), y = Int((b.face.y + b.face.height) * 180) + 10
                    guard y < 180 else { continue }
                    #expect(abs(Double(frame.disparity(x, y)) - a.disparity) < 1e-3)
                    #expect(a.disparity > b.disparity)
                    passes = true
                }
            }
            if passes { break }
        }
        #expect(passes, "no instant where one subject passes in front of another")
    }

    /// A face cut off by the frame's edge or behind a nearer subject is only partly in view, and
    /// the ground truth says how much.
    @Test func theShareOfEachFaceInViewAccountsForTheEdgeAndNearerSubjects() {
        let scene = SyntheticScene(.init(width: 1280, height: 720, seed: 1))
        var atEdge = false, behind = false, whole = false
        for k in 0..<400 {
            let subjects = scene.subjects(at: Double(k) / 20)
            for s in subjects {
                #expect((0...1).contains(s.faceVisibleFraction))
                let f = s.face
                let cut = f.x <= 0 || f.x + f.width >= 1
                let nearer = subjects.filter { $0.disparity > s.disparity }
                if cut && s.faceVisibleFraction < 0.5 && nearer.allSatisfy({ ObjectTracker.iou($0.body, f) == 0 }) { atEdge = true }
                if !cut && f.width > 0.02 && s.faceVisibleFraction < 0.5 {
                    // Inside the frame and mostly hidden: a nearer subject's figure overlaps the face.
                    #expect(nearer.contains { ObjectTracker.iou($0.body, f) > 0 }, "at \(Double(k) / 20) s")
                    behind = true
                }
                if !cut && nearer.allSatisfy({ ObjectTracker.iou($0.body, f) == 0 }) && f.width > 0.02 {
                    #expect(s.faceVisibleFraction == 1, "at \(Double(k) / 20) s")
                    whole = true
                }
            }
        }
        #expect(atEdge && behind && whole)
    }

    @Test func oneSubjectTurnsAwayForAWhileAndTurnsBack() {
        let facing = Self.timeline(Self.scene).compactMap { $0.subjects.first { $0.id == 1 }?.facingCamera }
        let firstAway = facing.firstIndex(of: false), lastAway = facing.lastIndex(of: false)
        #expect(firstAway != nil)
        if let firstAway, let lastAway {
            #expect(firstAway > 0 && lastAway < facing.count - 1, "faces the camera before and after")
            #expect(facing[firstAway...lastAway].allSatisfy { !$0 }, "one continuous spell")
            #expect(Double(lastAway - firstAway) * 0.05 > 1, "for more than a second")
        }
        // The others face the camera throughout.
        for id in [0, 2] {
            #expect(Self.timeline(Self.scene).allSatisfy { $0.subjects.first { $0.id == id }?.facingCamera ?? true })
        }
    }

    @Test func aSubjectWalksTowardsTheCamera() {
        let depths = Self.timeline(Self.scene).compactMap { $0.subjects.first { $0.id == 2 }?.depth }
        #expect(depths.count > 10)
        #expect(depths.first! - depths.last! > 1)
        #expect(zip(depths, depths.dropFirst()).allSatisfy { $0 >= $1 }, "depth only decreases")
    }

    @Test func theSceneLoopsAfterItsDuration() {
        let scene = Self.scene
        let duration = scene.configuration.duration
        #expect(scene.frameCount == 600)
        for t in [0.5, 6.0, 12.25] {
            let a = scene.subjects(at: t), b = scene.subjects(at: t + duration)
            #expect(a.map(\.id) == b.map(\.id))
            for (p, q) in zip(a, b) { #expect(abs(p.body.x - q.body.x) < 1e-9 && abs(p.depth - q.depth) < 1e-9) }
        }
        #expect(scene.subjects(at: 0).isEmpty && scene.subjects(at: duration - 0.01).isEmpty)
        let a = planeBytes(scene.renderFrame(0).left), b = planeBytes(scene.renderFrame(scene.frameCount).left)
        #expect(a == b)
    }

    @Test func configurationsOutOfRangeAreRejectedWithTheField() {
        #expect(throws: Never.self) { try SyntheticScene.Configuration().validate() }
        func field(_ change: (inout SyntheticScene.Configuration) -> Void) -> String? {
            var config = SyntheticScene.Configuration()
            change(&config)
            do {
                try config.validate()
                return nil
            } catch {
                return error.field
            }
        }
        #expect(field { $0.fps = 0 } == "fps")
        #expect(field { $0.width = 8 } == "width")
        #expect(field { $0.baseline = -1 } == "baseline")
        #expect(field { $0.noise = 0.5 } == "noise")
        #expect(field { $0.subjectCount = 17 } == "subjectCount")
        #expect(field { $0.lightDrop = .init(start: 1, duration: 2, level: 1.5) } == "lightDrop.level")
        #expect(field { $0.lightDrop = .init(start: 1, duration: 0, level: 0.5) } == nil)
        let error = SyntheticSceneError(field: "fps", message: "must be in (0, 1000], got 0.0")
        #expect(error.description == "synthetic scene: fps: must be in (0, 1000], got 0.0")
    }
}
