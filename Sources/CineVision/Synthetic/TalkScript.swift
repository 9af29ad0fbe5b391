// TalkScript: who speaks when in a synthetic conversation, and how far each speaker's mouth is
// open at every instant — the truth a speaker detector and a speaker-following focus are
// measured against.

import Foundation

/// A seeded conversation among `speakers` people: turns taken one after another, some long,
/// some a one-word reply, with short pauses between them; within a turn the speaker says
/// syllables (the mouth opens and closes about 4–5 times a second) in words separated by
/// brief closures.
struct TalkScript: Sendable, Hashable {
    /// One turn: `speaker` talks from `start` to `end` (seconds).
    struct Turn: Sendable, Hashable {
        let speaker: Int
        let start: Double
        let end: Double
        /// The turn's syllables: (start, length, how far the mouth opens 0…1), in order.
        let syllables: [Syllable]
    }

    /// One syllable: the mouth opens to `amplitude` and closes again over `length` seconds.
    struct Syllable: Sendable, Hashable {
        let start: Double
        let length: Double
        let amplitude: Double
    }

    /// The turns, in time order, not overlapping.
    let turns: [Turn]

    /// A listener chewing: their lips open and close without a sound from `start` to `end`.
    struct Chew: Sendable, Hashable {
        let listener: Int
        let start: Double
        let end: Double
    }

    /// The chewing listeners (with `chewing`): during half the turns of 2 s or more, one
    /// listener chews for 1–2 s from half a second in.
    let chews: [Chew]

    /// A conversation over `duration` seconds among `speakers` people (none with fewer than
    /// two). Turns start at 0.5 s; one in five is a one-word reply (0.25–0.5 s), the others last
    /// 2–5 s; pauses between turns are 0.2–0.8 s; the next speaker is never the one who just
    /// spoke. The last turn ends at least 0.3 s before `duration`.
    init(speakers: Int, duration: Double, seed: UInt64, chewing: Bool = false) {
        guard speakers >= 2 else {
            turns = []
            chews = []
            return
        }
        var random = SeededRandom(seed: seed ^ 0x7A1C_5C41)
        var out: [Turn] = []
        var t = 0.5
        var speaker = Int(random.unit() * Double(speakers)) % speakers
        while true {
            let short = !out.isEmpty && random.unit() < 0.2
            let length = short ? random.uniform(0.25, 0.5) : random.uniform(2, 5)
            let end = t + length
            guard end <= duration - 0.3 else { break }
            var syllables: [Syllable] = []
            var s = t
            var inWord = 0
            let wordLength = Int(random.uniform(2, 6.99))
            while s < end - 0.12 {
                let l = min(random.uniform(0.16, 0.28), end - s)
                syllables.append(Syllable(start: s, length: l, amplitude: random.uniform(0.5, 1)))
                s += l
                inWord += 1
                if inWord >= wordLength {
                    inWord = 0
                    s += random.uniform(0.12, 0.25)
                }
            }
            out.append(Turn(speaker: speaker, start: t, end: end, syllables: syllables))
            t = end + random.uniform(0.2, 0.8)
            let next = Int(random.unit() * Double(speakers - 1)) % (speakers - 1)
            speaker = next >= speaker ? next + 1 : next
        }
        turns = out
        // Drawn apart from the turns, so a scene with chewing has the same conversation.
        var chewRandom = SeededRandom(seed: seed ^ 0xC4E3_0F11)
        var chews: [Chew] = []
        for turn in out where chewing && turn.end - turn.start >= 2 {
            guard chewRandom.unit() < 0.5 else { continue }
            let k = Int(chewRandom.unit() * Double(speakers - 1)) % (speakers - 1)
            let start = turn.start + 0.5
            chews.append(Chew(listener: k >= turn.speaker ? k + 1 : k, start: start,
                              end: min(turn.end, start + chewRandom.uniform(1, 2))))
        }
        self.chews = chews
    }

    /// The turn under way at `t`, if any.
    func turn(at t: Double) -> Turn? {
        var lo = 0, hi = turns.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if turns[mid].end <= t { lo = mid + 1 } else { hi = mid }
        }
        guard lo < turns.count, turns[lo].start <= t else { return nil }
        return turns[lo]
    }

    /// Whether `speaker` is talking at `t` (inside one of their turns, pauses between words included).
    func isSpeaking(_ speaker: Int, at t: Double) -> Bool { turn(at: t)?.speaker == speaker }

    /// How far `speaker`'s mouth is open at `t`: 0 (closed) … 1.
    func mouthOpening(of speaker: Int, at t: Double) -> Double {
        if let chew = chews.first(where: { $0.listener == speaker && $0.start <= t && t < $0.end }) {
            return 0.6 * (0.5 - 0.5 * cos(2 * Double.pi * 1.6 * (t - chew.start)))
        }
        guard let turn = turn(at: t), turn.speaker == speaker else { return 0 }
        for s in turn.syllables where t >= s.start && t < s.start + s.length {
            let phase = (t - s.start) / s.length
            return s.amplitude * sin(Double.pi * phase)
        }
        return 0
    }
}
