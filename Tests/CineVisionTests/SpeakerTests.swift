// Who is speaking: the synthetic talk scene's script and truth, the speaking detector on mouth
// openings, the focus engine's speaker rule, and the real face models reading a talking face.
import CineMedia
import Foundation
import Testing

@testable import CineVision

/// A mouth opening series: closed (about 0.011 with a little noise) except while `talking`,
/// where syllables of `syllable` seconds open it to 0.04 — sampled every `step` seconds.
func mouthSeries(until: Double, step: Double, talking: [Range<Double>], syllable: Double = 0.2) -> [(Double, Double)] {
    var out: [(Double, Double)] = []
    var t = 0.0, k = 0
    while t < until {
        let noise = 0.002 * sin(Double(k) * 2.3)
        var o = 0.011 + noise
        if talking.contains(where: { $0.contains(t) }) {
            let phase = t.truncatingRemainder(dividingBy: syllable) / syllable
            o += 0.035 * sin(Double.pi * phase)
        }
        out.append((t, o))
        t += step
        k += 1
    }
    return out
}

@Suite struct SpeakerTests {
    @Test func talkScriptTakesTurnsAndItsTruthFollowsIt() {
        var c = SyntheticScene.Configuration(width: 320, height: 180, seed: 4, duration: 30, subjectCount: 3)
        c.talk = true
        let scene = SyntheticScene(c)
        let turns = scene.speakingTurns
        #expect(turns.count >= 5)
        for (a, b) in zip(turns, turns.dropFirst()) {
            #expect(a.end < b.start, "turns do not overlap")
            #expect(a.speaker != b.speaker, "the next speaker is someone else")
        }
        #expect(turns.last!.end <= 30)
        // Everyone stands in view facing the camera the whole time; exactly the turn's speaker speaks.
        for t in stride(from: 0.0, to: 30, by: 0.37) {
            let subjects = scene.subjects(at: t)
            #expect(subjects.count == 3)
            #expect(subjects.allSatisfy { $0.facingCamera && $0.faceVisibleFraction > 0.95 })
            let speaker = turns.first { $0.start <= t && t < $0.end }?.speaker
            let expected: [Int] = speaker.map { [$0] } ?? []
            #expect(subjects.filter(\.speaking).map(\.id) == expected)
            #expect(subjects.filter { !$0.speaking }.allSatisfy { $0.mouthOpening == 0 })
        }
        // Mouths move while speaking: open at some instants of a long turn, closed at others.
        let long = turns.first { $0.end - $0.start > 2 }!
        let openings = stride(from: long.start, to: long.end, by: 0.05).map { t in
            scene.subjects(at: t).first { $0.id == long.speaker }!.mouthOpening
        }
        #expect(openings.max()! > 0.5 && openings.filter { $0 < 0.05 }.count >= 3)
    }

    @Test func anOpenMouthIsDrawnAndAClosedOneIsNot() {
        var c = SyntheticScene.Configuration(width: 640, height: 360, seed: 2, duration: 20, noise: 0, subjectCount: 2)
        c.talk = true
        let scene = SyntheticScene(c)
        let long = scene.speakingTurns.first { $0.end - $0.start > 2 }!
        // The widest opening of the turn, and the same face at a closed instant.
        let times = stride(from: long.start, to: long.end, by: 1.0 / 30)
        let speaker = { (t: Double) in scene.subjects(at: t).first { $0.id == long.speaker }! }
        let open = times.max { speaker($0).mouthOpening < speaker($1).mouthOpening }!
        let closed = times.first { speaker($0).mouthOpening == 0 }!
        func mouthDarkness(_ t: Double) -> Double {
            let l = Image(width: 640, height: 360, format: .i420), r = Image(width: 640, height: 360, format: .i420)
            scene.render(frame: Int((t * 30).rounded()), left: l, right: r, groundTruth: nil)
            let f = speaker(t).face
            // The mouth: the middle fifth of the face's width, 66–76 % down the face box.
            let x0 = Int((f.x + 0.4 * f.width) * 640), x1 = Int((f.x + 0.6 * f.width) * 640)
            let y0 = Int((f.y + 0.66 * f.height) * 360), y1 = Int((f.y + 0.76 * f.height) * 360)
            var dark = 0, n = 0
            let luma = l.plane(0)
            for y in y0..<y1 {
                let row = luma.row(y, as: UInt8.self)
                for x in x0..<x1 {
                    n += 1
                    if row[x] < 60 { dark += 1 }
                }
            }
            return Double(dark) / Double(max(1, n))
        }
        #expect(mouthDarkness(open) > 0.15)
        #expect(mouthDarkness(closed) < 0.05)
    }

    @Test func theDetectorMarksASpeakerSoonAndLetsGoSoonAfter() {
        var d = SpeakingDetector()
        var marked: [(Double, Bool)] = []
        for (t, o) in mouthSeries(until: 8, step: 0.1, talking: [2..<5]) {
            d.observe(id: 7, time: t, opening: o)
            marked.append((t, d.state(of: 7, at: t)!.speaking))
        }
        // Silent before, speaking from within 0.3 s of the first word to its end, silent 0.45 s after.
        #expect(marked.filter { $0.0 < 2 }.allSatisfy { !$0.1 })
        #expect(marked.filter { $0.0 >= 2.3 && $0.0 < 5 }.allSatisfy { $0.1 })
        #expect(marked.filter { $0.0 >= 5.45 }.allSatisfy { !$0.1 })
        #expect(d.state(of: 8, at: 1) == nil)
    }

    @Test func aMouthHeldOpenOrALoneTwitchIsNotSpeech() {
        var d = SpeakingDetector()
        // Lips apart and still from 2 s on (a smile, a resting open mouth), one twitch at 6 s.
        for k in 0..<100 {
            let t = Double(k) / 10
            var o = t >= 2 ? 0.03 : 0.011
            if k == 60 { o += 0.03 }
            d.observe(id: 1, time: t, opening: o)
            if t > 4 { #expect(!d.state(of: 1, at: t)!.speaking, "at \(t) s") }
        }
    }

    /// Two people 2 and 1 s apart: `group`'s face speaks over `talking`.
    func conversation(_ talking: [Int: [Range<Double>]], at t: Double) -> Detections {
        var out: Detections = []
        for (k, g) in [1, 2].enumerated() {
            var face = Detection(id: 10 + g, groupID: g, type: .humanFace,
                                 bounds: NormalizedRect(x: 0.2 + 0.4 * Double(k), y: 0.3, width: 0.1, height: 0.15),
                                 disparity: g == 1 ? 40 : 20, facing: .towards)
            let on = talking[g]?.contains { $0.contains(t) } ?? false
            face.speaking = on
            face.speakingScore = on ? 1 : 0
            out.append(face)
        }
        return out
    }

    func run(_ talking: [Int: [Range<Double>]], until: Double, lookahead: Double = 0) -> [FocusEngineOutput] {
        var c = FocusEngineConfiguration()
        c.follow = .speaker
        c.lookahead = lookahead
        var engine = FocusEngine(configuration: c)
        var out: [FocusEngineOutput] = []
        for i in 0..<Int(until * 30) {
            let t = Double(i) / 30
            out += engine.ingest(time: Timestamp(frame: i, fps: 30), detections: conversation(talking, at: t))
        }
        return out + engine.flush()
    }

    @Test func focusFollowsTheSpeakerAndSilenceKeepsTheLastOne() {
        // Group 2 (the farther, less prominent one) speaks first, then 1, then 2 again; silence after.
        let out = run([2: [1..<4, 7..<9], 1: [4.5..<6.5]], until: 12)
        #expect(out.group(at: 3) == 2, "the first speaker, not the most prominent face")
        #expect(out.group(at: 6) == 1)
        #expect(abs(out.at(6).focus.focusDisparity - 40) < 0.5)
        #expect(out.group(at: 8.5) == 2)
        #expect(out.group(at: 11.5) == 2, "silence keeps the last speaker")
    }

    @Test func aOneWordReplyDoesNotRackFocus() {
        // Live: a 0.25 s word; with a lookahead (the longer dwell): a 0.6 s reply.
        let live = run([1: [0.5..<4, 5..<8], 2: [4.2..<4.45]], until: 9)
        #expect(live.allSatisfy { $0.time.seconds < 1.5 || abs($0.focus.focusDisparity - 40) < 0.5 })
        let after = run([1: [0.5..<4, 5..<8], 2: [4.1..<4.7]], until: 9, lookahead: 2)
        #expect(after.allSatisfy { $0.time.seconds < 1.5 || abs($0.focus.focusDisparity - 40) < 0.5 })
    }

    @Test func withLookaheadTheRackLandsBeforeTheNewSpeakersFirstWord() {
        let out = run([1: [0.5..<3], 2: [4..<7]], until: 9, lookahead: 2)
        // Focus is on speaker 2 (disparity 20) when their first word starts, within a frame.
        #expect(abs(out.at(4.0).focus.focusDisparity - 20) < 1)
        // And was still on 1 well before.
        #expect(abs(out.at(3.2).focus.focusDisparity - 40) < 1)
    }

    @Test func theRealModelsSeeWhoIsTalking() throws {
        // Synthetic talk frames through BlazeFace and the face landmark model (LiteRT), as the
        // detector node reads them every 2nd frame: the speaker is marked, the listener not.
        var c = SyntheticScene.Configuration(width: 960, height: 540, seed: 1, duration: 20, subjectCount: 2)
        c.talk = true
        let scene = SyntheticScene(c)
        let turn = scene.speakingTurns.first { $0.end - $0.start > 2.5 }!
        let faces = try BlazeFaceDetector(), landmarker = try FaceLandmarker()
        var detector = SpeakingDetector()
        let l = Image(width: 960, height: 540, format: .i420), r = Image(width: 960, height: 540, format: .i420)
        var verdicts: [Int: [Bool]] = [:]
        for f in stride(from: Int(turn.start * 30), to: Int(turn.end * 30), by: 2) {
            let t = Double(f) / 30
            scene.render(frame: f, left: l, right: r, groundTruth: nil)
            let truth = scene.subjects(at: t)
            for m in try landmarker.confirmed(try faces.detect(l, tiles: 2), in: l, minScore: 0.5, minPresence: 0.5) {
                guard let who = truth.first(where: { ObjectTracker.iou($0.face, m.face.bounds) > 0.3 }) else { continue }
                detector.observe(id: who.id, time: t, opening: FaceMesh.mouthOpening(m.mesh))
                if t > turn.start + 0.5 { verdicts[who.id, default: []].append(detector.state(of: who.id, at: t)!.speaking) }
            }
        }
        let listener = 1 - turn.speaker
        let spoke = verdicts[turn.speaker] ?? [], listened = verdicts[listener] ?? []
        #expect(spoke.count > 20 && listened.count > 20, "both faces found")
        #expect(Double(spoke.filter { $0 }.count) / Double(max(1, spoke.count)) > 0.85)
        #expect(listened.filter { $0 }.isEmpty)
    }
}
