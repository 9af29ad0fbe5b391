// Hearing who speaks: the voice detector on the synthetic talk scene's sound against its turns,
// on a steady tone and hiss, on any channel count, on sound that starts late; and the speaking
// detector gated by what was heard.
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct VoiceActivityTests {
    /// A talk scene of `people` and the sound of its first `seconds`, in 1/30 s blocks as the camera sends it.
    static func talk(people: Int, seed: UInt64, seconds: Double) -> (SyntheticScene, [AudioBlock]) {
        var c = SyntheticScene.Configuration(width: 320, height: 180, seed: seed, duration: seconds, subjectCount: people)
        c.talk = true
        let scene = SyntheticScene(c)
        let rate = 48_000
        let blocks = (0..<Int(seconds * 30)).map { f in
            let first = f * rate / 30, next = (f + 1) * rate / 30
            return AudioBlock(samples: scene.sound(first: first, count: next - first, sampleRate: rate), sampleRate: rate,
                              start: Timestamp(seconds: Double(first) / Double(rate)))
        }
        return (scene, blocks)
    }

    @Test func theSceneVoicesAreHeardDuringTurnsAndNotBetweenThem() {
        for seed: UInt64 in [1, 2] {
            let (scene, blocks) = Self.talk(people: 3, seed: seed, seconds: 30)
            var vad = VoiceActivityDetector()
            var speaking = 0, heard = 0, silent = 0, falsely = 0
            for b in blocks {
                vad.feed(b)
                let t = b.start.seconds
                guard let v = vad.activity(at: t) else { continue }
                let talking = scene.speakingTurns.contains { $0.start <= t && t < $0.end }
                // Silence: more than the hangover after a turn's last word, before the next turn.
                let quiet = !scene.speakingTurns.contains { $0.start <= t && t < $0.end + 0.25 }
                if talking { speaking += 1; if v.active { heard += 1 } }
                if quiet { silent += 1; if v.active { falsely += 1 } }
            }
            #expect(speaking > 300 && silent > 40)
            #expect(Double(heard) >= 0.95 * Double(speaking), "seed \(seed): heard \(heard) of \(speaking) speaking frames")
            #expect(Double(falsely) <= 0.02 * Double(silent), "seed \(seed): voice on \(falsely) of \(silent) silent frames")
        }
    }

    @Test func aSteadyToneAndHissAreNotAVoice() {
        let rate = 16_000
        var vad = VoiceActivityDetector()
        var active = 0
        for k in 0..<200 {  // 10 s in 50 ms blocks: a 440 Hz tone at −12 dB over hiss
            let samples = (0..<800).map { i -> Float in
                let n = k * 800 + i
                return Float(0.25 * sin(2 * Double.pi * 440 * Double(n) / Double(rate)) + SyntheticVoice.hiss(n, seed: 3) * 0.01)
            }
            vad.feed(samples, sampleRate: rate, start: Double(k) * 0.05)
            if vad.activity(at: Double(k) * 0.05)?.active == true { active += 1 }
        }
        #expect(active == 0)
        // Hiss alone, then loud broadband noise (a door, keys): not in the voice band's share.
        var noisy = VoiceActivityDetector()
        let hiss = (0..<48_000).map { Float(SyntheticVoice.hiss($0, seed: 9) * ($0 < 24_000 ? 0.003 : 0.3)) }
        noisy.feed(hiss, sampleRate: 48_000, start: 0)
        #expect(stride(from: 0.0, to: 0.98, by: 0.02).allSatisfy { noisy.activity(at: $0)?.active == false })
    }

    @Test func monoStereoAndQuadMicrophonesHearTheSame() {
        let (_, blocks) = Self.talk(people: 2, seed: 3, seconds: 12)
        func decisions(channels: Int) -> [Bool?] {
            var vad = VoiceActivityDetector()
            return blocks.map { b in
                // The voice on every channel, a little quieter on the others.
                let wide = b.samples.flatMap { s in (0..<channels).map { c in s * (c == 0 ? 1 : 0.8) } }
                vad.feed(AudioBlock(samples: wide, channels: channels, sampleRate: b.sampleRate, start: b.start))
                return vad.activity(at: b.start.seconds)?.active
            }
        }
        let mono = decisions(channels: 1)
        #expect(mono.filter { $0 == true }.count > 100)
        for channels in [2, 4] {
            let other = decisions(channels: channels)
            let differ = zip(mono, other).filter { $0 != $1 }.count
            #expect(differ <= 3, "\(channels) channels: \(differ) frames differ from mono")
        }
    }

    @Test func soundThatStartsLateOrStopsIsNotHeardRatherThanSilent() {
        let (_, blocks) = Self.talk(people: 2, seed: 1, seconds: 10)
        var vad = VoiceActivityDetector()
        #expect(vad.activity(at: 0) == nil)
        // The microphone starts 2 s in, drops out from 5 to 6 s.
        for b in blocks where b.start.seconds >= 2 && !(5..<6).contains(b.start.seconds) { vad.feed(b) }
        #expect(vad.firstHeard.map { abs($0 - 2) < 0.04 } == true)
        #expect(vad.activity(at: 1) == nil)
        #expect(vad.activity(at: 5.5) == nil)
        #expect(vad.activity(at: 3) != nil && vad.activity(at: 7) != nil)
        #expect(vad.activity(at: 10.5) == nil)
    }

    @Test func theVoiceGatesTheLips() {
        // Face 1 moves its lips from 1 to 4 s; the voice is heard only from 1 to 2 s.
        var lips = SpeakingDetector()
        var gated: [Double: (Bool, Bool, Bool)] = [:]
        for (t, o) in mouthSeries(until: 5, step: 1.0 / 15, talking: [1..<4]) {
            lips.observe(id: 1, time: t, opening: o)
            let voice = t < 2
            gated[t] = (lips.state(of: 1, at: t)!.speaking, lips.state(of: 1, at: t, voice: voice)!.speaking,
                        lips.state(of: 1, at: t, voice: nil)!.speaking)
        }
        let times = gated.keys.sorted()
        // Without a voice the lips alone are not speech (chewing, silent mouthing)…
        #expect(times.filter { $0 > 2.1 && $0 < 4 }.allSatisfy { gated[$0]!.1 == false })
        #expect(times.filter { $0 > 2.1 && $0 < 3.9 }.filter { gated[$0]!.0 }.count > 20, "the lips alone say speaking")
        // …with one, a face speaks from its first opening, sooner than the lips alone say so.
        let firstGated = times.first { gated[$0]!.1 }!, firstLips = times.first { gated[$0]!.0 }!
        #expect(firstGated < firstLips)
        #expect(times.allSatisfy { gated[$0]!.2 == gated[$0]!.0 }, "not heard: the lips decide alone")
    }
}

@Suite struct SpeakerSyncTests {
    /// Six seconds read 15 times a second: face 1 speaks from 1 to 5 s (syllables of 0.2 s) and
    /// the voice's loudness follows its syllables; face 2's opening is `other(t, syllable)`.
    /// `judge(t, lips)` is called after each reading.
    static func conversation(other: (Double, Double) -> Double, judge: (Double, SpeakingDetector) -> Void) {
        var lips = SpeakingDetector()
        for k in 0..<(6 * 15) {
            let t = Double(k) / 15
            let syllable = (1..<5).contains(t) ? sin(Double.pi * t.truncatingRemainder(dividingBy: 0.2) / 0.2) : 0
            let level = (1..<5).contains(t) ? 6 + 20 * syllable : 0
            lips.observe(id: 1, time: t, opening: 0.011 + 0.035 * syllable, voiceLevel: level)
            lips.observe(id: 2, time: t, opening: other(t, syllable), voiceLevel: level)
            judge(t, lips)
        }
    }

    @Test func aListenerChewingWhileSomeoneSpeaksIsNotTheSpeaker() {
        // Face 2 chews at 1.6 Hz from 2 to 4 s.
        var speaker = 0, chewer = 0, chewerByLips = 0, frames = 0
        Self.conversation(other: { t, _ in
            0.011 + 0.03 * ((2..<4).contains(t) ? 0.5 - 0.5 * cos(2 * Double.pi * 1.6 * (t - 2)) : 0)
        }) { t, lips in
            guard (2.6..<4).contains(t) else { return }
            frames += 1
            if lips.state(of: 1, at: t, voice: true)!.speaking { speaker += 1 }
            if lips.state(of: 2, at: t, voice: true)!.speaking { chewer += 1 }
            if lips.state(of: 2, at: t)!.speaking { chewerByLips += 1 }
        }
        #expect(speaker == frames, "the speaker: \(speaker) of \(frames)")
        #expect(chewerByLips > frames / 2, "the lips alone take the chewing for speech: \(chewerByLips) of \(frames)")
        #expect(chewer == 0, "the chewing listener, heard against the voice: \(chewer) of \(frames)")
    }

    @Test func oneVoiceOneSpeakerTheMouthThatFollowsItBest() {
        // Face 2 chews, and half its movement happens to fall with face 1's syllables: alone it
        // would pass the match; beside face 1, whose mouth follows the voice better, it does not.
        var speaker = 0, other = 0, otherAlone = 0, frames = 0
        var last: SpeakingDetector?
        Self.conversation(other: { t, syllable in
            0.011 + 0.02 * syllable + 0.02 * ((1..<5).contains(t) ? 0.5 - 0.5 * cos(2 * Double.pi * 1.6 * (t - 1)) : 0)
        }) { t, lips in
            last = lips
            guard (2..<5).contains(t) else { return }
            frames += 1
            let both = lips.states(of: [1, 2], at: t, voice: true)
            if both[1]!.speaking { speaker += 1 }
            if both[2]!.speaking { other += 1 }
            if lips.state(of: 2, at: t, voice: true)!.speaking { otherAlone += 1 }
        }
        #expect(speaker == frames, "the speaker: \(speaker) of \(frames)")
        #expect(otherAlone > frames / 2, "alone, the half-following mouth passes: \(otherAlone) of \(frames)")
        #expect(other == 0, "beside the speaker it does not: \(other) of \(frames)")
        // Without a voice heard, no exclusivity: the lips decide for each face.
        let lips = last!
        let silent = lips.states(of: [1, 2], at: 4, voice: nil)
        #expect(silent[1] == lips.state(of: 1, at: 4) && silent[2] == lips.state(of: 2, at: 4))
    }
}

@Suite struct SpeakerVoiceTests {
    /// Two faces over 12 s: face 1 (group 1) speaks from 1 to 5 s, face 3 (group 2) moves its
    /// lips — marked speaking by the lips alone — from 6 to 10 s.
    static func frames() -> [(time: Timestamp, detections: Detections)] {
        (0..<360).map { f in
            let t = Double(f) / 30
            var a = Detection(id: 1, groupID: 1, type: .humanFace, bounds: NormalizedRect(x: 0.2, y: 0.3, width: 0.1, height: 0.15),
                              confidence: 0.9, disparity: 20)
            var b = Detection(id: 3, groupID: 2, type: .humanFace, bounds: NormalizedRect(x: 0.6, y: 0.3, width: 0.1, height: 0.15),
                              confidence: 0.9, disparity: 30)
            a.speaking = (1..<5).contains(t)
            a.speakingFor = a.speaking == true ? t - 1 : nil
            b.speaking = (6..<10).contains(t)
            b.speakingFor = b.speaking == true ? t - 6 : nil
            return (Timestamp(seconds: t), [a, b])
        }
    }

    @Test func afterTheTakeTheRecordedVoiceKeepsSilentLipsFromTakingFocus() {
        // The sound: a voice (the talk scene's first long turn, moved to 1…5 s) then only the room.
        var c = SyntheticScene.Configuration(width: 320, height: 180, seed: 1, duration: 20, subjectCount: 2)
        c.talk = true
        let scene = SyntheticScene(c)
        let turn = scene.speakingTurns.first { $0.end - $0.start > 4 }!
        let rate = 16_000
        let hiss = { (n: Int) in Float(SyntheticVoice.hiss(n, seed: 5) * 0.0022) }
        var sound = (0..<rate).map(hiss)
        sound += scene.sound(first: Int(turn.start * Double(rate)), count: 4 * rate, sampleRate: rate)
        sound += (0..<(7 * rate)).map { hiss($0 + rate) }
        let voice = SpeakerDecisions.voice(of: AudioBlock(samples: sound, sampleRate: rate, start: .zero))
        let lips = SpeakerDecisions.decisions(frames: Self.frames())
        let heard = SpeakerDecisions.decisions(frames: Self.frames(), voice: voice)
        // Racks from the time face 3's lips move (before anyone speaks, focus is on the nearer face).
        func racks(_ d: [FocusDecision]) -> [Int] {
            d.filter { $0.time.seconds > 5 }.compactMap { if case .group(let g) = $0.target { g } else { nil } }
        }
        #expect(racks(lips) == [2], "the lips alone rack to the silent face: \(lips)")
        #expect(racks(heard).isEmpty, "with the voice, focus stays on the speaker: \(heard)")
        #expect(heard.contains { $0.target == .group(1) })
        // Without sound the lips decide: the same as no voice given.
        #expect(SpeakerDecisions.decisions(frames: Self.frames(), voice: SpeakerDecisions.voice(of: nil)) == lips)
    }
}
