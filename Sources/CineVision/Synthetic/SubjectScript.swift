// SubjectScript: when and how one subject of the synthetic scene enters, crosses and leaves,
// and the schedule of all subjects derived from the seed.
import Foundation

/// Where and how one subject is at one instant, in world units.
struct SubjectPose: Sendable, Hashable {
    /// The subject's id (its index in the schedule).
    let id: Int
    /// World X of the body's centre line, metres.
    let x: Double
    /// Depth, metres.
    let depth: Double
    /// World height of the head's centre, metres (including the walking bob).
    let headHeight: Double
    /// Whether the face is towards the camera (otherwise the back of the head is).
    let facingCamera: Bool
    /// Which ``SceneCharacter`` of the library the subject looks like.
    let character: Int
    /// Which clothing tile the subject wears.
    let clothing: Int
    /// How far the mouth is open: 0 (closed) … 1 (a talking subject's widest).
    var mouthOpening = 0.0
    /// A whole figure walking (a wide scene): the phase of its stride, radians; its legs and
    /// arms swing with it. `nil`: the torso runs off the bottom of the frame (a close scene).
    var gait: Double? = nil
}

/// One subject's walk: it enters from one side at ``enterTime``, strolls across at a steady
/// pace (possibly drifting in depth) and has left at ``exitTime``; it may turn its back for a
/// while.
struct SubjectScript: Sendable, Hashable {
    let id: Int
    /// Scene time (seconds) when the subject is just outside the frame, about to step in.
    let enterTime: Double
    /// Seconds from entering to having just left.
    let crossingDuration: Double
    /// Enters at the left edge and leaves at the right (otherwise the reverse).
    let entersFromLeft: Bool
    /// Depth when entering, metres.
    let startDepth: Double
    /// Depth when leaving, metres (depth changes linearly in between).
    let endDepth: Double
    /// Height of the head's centre, metres.
    let headHeight: Double
    /// The part of the crossing (progress 0…1) during which the subject faces away.
    let turnedAway: ClosedRange<Double>?
    let character: Int
    let clothing: Int
    /// Phase of the walking bob, radians.
    let stepPhase: Double
    /// World X where a subject who does not walk stands (a talk scene); `nil` for a walker.
    var standingX: Double? = nil
    /// Strides a second of a whole figure walking (a wide scene: legs and arms swing, see
    /// ``WalkerLimbs``); `nil` for a close subject.
    var strideRate: Double? = nil

    /// Scene time when the subject has just left the frame.
    var exitTime: Double { enterTime + crossingDuration }

    /// The pose at scene time `time`, or `nil` before the subject enters or after it leaves.
    func pose(at time: Double, camera: StereoCameraModel) -> SubjectPose? {
        if let standingX {
            guard time >= enterTime && time <= exitTime else { return nil }
            // Standing, swaying a little from side to side and breathing.
            let sway = 0.015 * sin(0.6 * time + stepPhase)
            let breath = 0.004 * sin(1.7 * time + 2 * stepPhase)
            return SubjectPose(
                id: id, x: standingX + sway, depth: startDepth, headHeight: headHeight + breath,
                facingCamera: true, character: character, clothing: clothing)
        }
        let progress = (time - enterTime) / crossingDuration
        guard progress >= 0 && progress <= 1 else { return nil }
        let depth = startDepth + (endDepth - startDepth) * progress
        // Start and end just outside the view at the depth the subject has then.
        let margin = strideRate == nil ? SubjectFigure.bodyHalfWidth + 0.05 : 0.5
        let startX = -(startDepth * camera.tanHalfWidth + margin), endX = endDepth * camera.tanHalfWidth + margin
        let x = startX + (endX - startX) * progress
        let bob = 0.012 * abs(sin(Double.pi * 1.8 * time + stepPhase))
        return SubjectPose(
            id: id, x: entersFromLeft ? x : -x, depth: depth, headHeight: headHeight + bob,
            facingCamera: !(turnedAway?.contains(progress) ?? false),
            character: character, clothing: clothing, gait: strideRate.map { 2 * Double.pi * $0 * time + stepPhase })
    }

    /// The walks of `count` subjects over a scene of `duration` seconds.
    ///
    /// Subjects come in pairs (0 and 1, 2 and 3, …; an odd last one walks alone). Pairs enter
    /// spread over the first 43 % of the scene (55 % when the last walks alone); in a pair the second enters from the other side
    /// when the first is about 30 % across, so the two pass each other inside the frame: the
    /// first walks near (1.3–1.7 m), the second further back (2.0–2.4 m), so the near one passes
    /// in front. A crossing takes 34–40 % of the duration. With three or more subjects the last
    /// one walks towards the camera (about 2.9 m → 1.45 m). Subject 1 (or 0 when alone) turns
    /// its back for 30 % of its crossing, around the middle — while its partner is still in view.
    /// Everyone has left by 98 % of the duration, so a looped scene restarts empty.
    static func schedule(
        count: Int, duration: Double, seed: UInt64, characterCount: Int,
        clothingCount: Int
    ) -> [SubjectScript] {
        var random = SeededRandom(seed: seed ^ 0x5CB_7EC7)
        let flip = random.unit() < 0.5
        let characters = random.permutation(of: characterCount)
        let clothes = random.permutation(of: clothingCount)
        let turner = count >= 2 ? 1 : 0
        let pairCount = (count + 1) / 2
        var scripts: [SubjectScript] = []
        var partnerEnter = 0.0, partnerCrossing = 0.0
        for k in 0..<count {
            let pair = k / 2, isSecond = k % 2 == 1
            let crossing = random.uniform(0.34, 0.40) * duration
            let enter: Double
            if isSecond {
                enter = partnerEnter + random.uniform(0.27, 0.33) * partnerCrossing
            } else {
                // The last pair starts later when it is a single walker (no partner to wait for).
                let lastSlot = count % 2 == 1 ? 0.52 : 0.43
                let slot = pairCount == 1 ? 0.03 : 0.03 + (lastSlot - 0.03) * Double(pair) / Double(pairCount - 1)
                enter = (slot + random.uniform(0, 0.03)) * duration
                partnerEnter = enter
                partnerCrossing = crossing
            }
            var startDepth = isSecond ? random.uniform(2.0, 2.4) : random.uniform(1.3, 1.7)
            var endDepth = startDepth + random.uniform(-0.1, 0.1)
            if count >= 3 && k == count - 1 {
                startDepth = random.uniform(2.85, 3.0)
                endDepth = random.uniform(1.3, 1.6)
            }
            let headHeight = random.uniform(1.55, 1.72)
            let turnStart = random.uniform(0.3, 0.4)
            scripts.append(
                SubjectScript(
                    id: k, enterTime: enter, crossingDuration: crossing,
                    entersFromLeft: ((pair % 2 == 0) != flip) != isSecond,
                    startDepth: startDepth, endDepth: endDepth, headHeight: headHeight,
                    turnedAway: k == turner ? turnStart...(turnStart + 0.3) : nil,
                    character: characters[k % characterCount], clothing: clothes[k % clothingCount],
                    stepPhase: random.uniform(0, 2 * Double.pi)))
        }
        return scripts
    }

    /// The people of a wide scene: `count` whole figures walking across at 12–38 m (at 720p and
    /// 60°, 150 down to 50 pixels tall; depths spread evenly over that range, in a seeded order),
    /// 1.1–1.5 m/s, 1.6–1.9 m tall, each way in turn (the first way seeded). They start at seeded
    /// times from already half-way across at the start to 60 % of the scene, so the scene is
    /// busy from its first frame; a crossing takes 11–45 s, so some are still walking when the
    /// scene loops. Even-numbered walkers show their faces, the others the backs of their heads;
    /// tops are stripes, knit, denim or fleece.
    static func walkers(count: Int, duration: Double, seed: UInt64, characterCount: Int, clothingCount: Int,
                        camera: StereoCameraModel) -> [SubjectScript] {
        var random = SeededRandom(seed: seed ^ 0x3A1C_E77)
        let flip = random.unit() < 0.5
        let characters = random.permutation(of: characterCount)
        let clothes = random.permutation(of: clothingCount)
        // Tops in everyday fabrics: stripes, knit, denim, fleece (no tartan or polka dots).
        let tops = [0, 2, 3, 5].filter { $0 < clothingCount }
        let slots = random.permutation(of: max(1, count))
        return (0..<count).map { k in
            let depth = 12 + 26 * (Double(slots[k]) + random.uniform(0.1, 0.9)) / Double(count)
            let speed = random.uniform(1.1, 1.5)
            let crossing = (2 * depth * camera.tanHalfWidth + 1) / speed
            let enter = random.uniform(-0.5 * crossing, 0.6 * duration)
            let stature = random.uniform(1.6, 1.9)
            return SubjectScript(
                id: k, enterTime: enter, crossingDuration: crossing, entersFromLeft: (k % 2 == 0) != flip,
                startDepth: depth, endDepth: depth, headHeight: stature - SubjectFigure.headHalfHeight, turnedAway: k % 2 == 0 ? nil : 0...1,
                character: characters[k % characterCount], clothing: tops[clothes[k % clothingCount] % tops.count],
                stepPhase: random.uniform(0, 2 * Double.pi), strideRate: speed / 1.4)
        }
    }

    /// The people of a talk scene: `count` subjects standing side by side facing the camera for
    /// the whole `duration`, at different depths (1.3 m to 2.6 m, nearest first, placed left to
    /// right in a seeded order), spread across the frame so that no head hides another.
    static func standing(
        count: Int, duration: Double, seed: UInt64, characterCount: Int, clothingCount: Int,
        camera: StereoCameraModel
    ) -> [SubjectScript] {
        var random = SeededRandom(seed: seed ^ 0x7A1C_0001)
        let characters = random.permutation(of: characterCount)
        let clothes = random.permutation(of: clothingCount)
        let slots = random.permutation(of: max(1, count))
        return (0..<count).map { k in
            let depth = count == 1 ? 1.5 : 1.3 + 1.3 * Double(k) / Double(count - 1) + random.uniform(-0.08, 0.08)
            // Slot centres across the middle 80 % of the view at that depth.
            let u = count == 1 ? 0 : -0.8 + 1.6 * (Double(slots[k]) + 0.5) / Double(count)
            let x = u * depth * camera.tanHalfWidth * 0.9
            return SubjectScript(
                id: k, enterTime: 0, crossingDuration: duration, entersFromLeft: true,
                startDepth: depth, endDepth: depth, headHeight: random.uniform(1.55, 1.7), turnedAway: nil,
                character: characters[k % characterCount], clothing: clothes[k % clothingCount],
                stepPhase: random.uniform(0, 2 * Double.pi), standingX: x)
        }
    }
}
