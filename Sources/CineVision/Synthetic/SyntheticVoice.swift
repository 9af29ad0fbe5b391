// SyntheticVoice: what a microphone in the synthetic talk scene hears — each speaker's voice,
// syllable by syllable in step with their mouth, over the room's faint hiss.

import Foundation

/// The sound of a synthetic talk scene (``TalkScript``).
///
/// Each syllable is a voiced vowel: a harmonic series on the speaker's own pitch (110–220 Hz,
/// with a slight vibrato), shaped by two formants that change from syllable to syllable, its
/// loudness rising and falling with the mouth's opening. Under it, the room's hiss at about
/// −58 dB of full scale. Deterministic: the same scene gives the same samples, and any stretch
/// can be rendered on its own (blocks rendered one after another join seamlessly).
struct SyntheticVoice: Sendable {
    let script: TalkScript
    /// Each speaker's pitch, Hz.
    let pitches: [Double]
    let seed: UInt64

    init(script: TalkScript, speakers: Int, seed: UInt64) {
        self.script = script
        self.seed = seed
        var random = SeededRandom(seed: seed ^ 0x5E1C_E0F0)
        pitches = (0..<max(speakers, 1)).map { k in
            // Spread the speakers over the range so no two sound alike.
            let lo = 110.0 + 110.0 * Double(k) / Double(max(speakers, 1))
            return random.uniform(lo, lo + 110.0 / Double(max(speakers, 1)))
        }
    }

    /// `count` samples (one channel, −1…1) at `sampleRate` from sample index `first` on
    /// (sample `n` is heard at `n / sampleRate` seconds).
    func render(first: Int, count: Int, sampleRate: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let rate = Double(sampleRate)
        for i in 0..<count {
            let n = first + i
            out[i] = Float(Self.hiss(n, seed: seed) * 0.0022)
        }
        // The voice, syllable by syllable.
        let t0 = Double(first) / rate, t1 = Double(first + count) / rate
        for turn in script.turns where turn.end > t0 && turn.start < t1 {
            let base = pitches[min(turn.speaker, pitches.count - 1)]
            for s in turn.syllables where s.start + s.length > t0 && s.start < t1 {
                // The vowel: two formants from the syllable's own draw.
                var r = SeededRandom(seed: seed ^ UInt64(bitPattern: Int64((s.start * 1000).rounded())))
                let f1 = r.uniform(350, 850), f2 = r.uniform(900, 2300)
                let harmonics = max(1, Int(3800 / base))
                var weights = [Double](repeating: 0, count: harmonics)
                var total = 0.0
                for k in 1...harmonics {
                    let f = Double(k) * base
                    let w = exp(-pow((f - f1) / 160, 2)) + 0.6 * exp(-pow((f - f2) / 260, 2)) + 0.15 / Double(k)
                    weights[k - 1] = w
                    total += w
                }
                let lo = max(first, Int((s.start * rate).rounded(.up)))
                let hi = min(first + count, Int(((s.start + s.length) * rate).rounded(.down)))
                guard lo < hi else { continue }
                for n in lo..<hi {
                    let t = Double(n) / rate
                    let phase = (t - s.start) / s.length
                    let envelope = s.amplitude * sin(Double.pi * phase)
                    // The pitch's running phase: base × (t − a·cos(2π·5t)/(2π·5)), a 3 % vibrato.
                    let cycles = base * (t - 0.03 * cos(2 * Double.pi * 5 * t) / (2 * Double.pi * 5))
                    var v = 0.0
                    for k in 0..<harmonics {
                        v += weights[k] * sin(2 * Double.pi * Double(k + 1) * cycles)
                    }
                    out[n - first] += Float(0.3 * envelope * v / total)
                }
            }
        }
        return out
    }

    /// A seeded value in −1…1 for sample `n` (the room's hiss).
    static func hiss(_ n: Int, seed: UInt64) -> Double {
        var x = UInt64(bitPattern: Int64(n)) &* 0x9E37_79B9_7F4A_7C15 ^ seed
        x ^= x >> 31
        x &*= 0xBF58_476D_1CE4_E5B9
        x ^= x >> 27
        return Double(x >> 11) / Double(1 << 52) - 1
    }
}

extension SyntheticScene {
    /// What a microphone in the scene hears: one channel at `sampleRate`, `count` samples from
    /// sample index `first` (heard at `first / sampleRate` seconds). A talk scene's voices over
    /// the room's hiss; any other scene, the hiss alone. Past ``Configuration/duration`` the
    /// scene repeats, its sound with it.
    public func sound(first: Int, count: Int, sampleRate: Int) -> [Float] {
        let period = max(1, Int((configuration.duration * Double(sampleRate)).rounded()))
        var out: [Float] = []
        out.reserveCapacity(count)
        var n = first
        while n < first + count {
            // Within one pass of the scene: sample n is the pass's sample n mod period.
            let local = ((n % period) + period) % period
            let length = min(first + count - n, period - local)
            out += voice.render(first: local, count: length, sampleRate: sampleRate)
            n += length
        }
        return out
    }
}
