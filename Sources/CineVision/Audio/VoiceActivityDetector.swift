// VoiceActivityDetector: whether someone is talking, from the sound alone — the energy in the
// voice band against the room's own noise floor, hop by hop, with a short hangover that bridges
// the gaps between words.

import CineMedia
import Foundation

/// Decides, every 20 ms of sound, whether a voice is heard.
///
/// A simple, robust detector of the classic kind (energy against an adaptive noise floor):
/// - The sound (any channel count, mixed to one; any sample rate) is filtered to the voice band
///   (200–3500 Hz, two second-order sections).
/// - Per hop of ``Configuration/hop`` seconds: the band's energy, and its share of all the energy.
/// - The **floor** is the lowest band energy of the last ``Configuration/floorSpan`` seconds:
///   the room's hum, a fan, the microphone's hiss. A steady tone is its own floor and never
///   counts as a voice.
/// - A hop is **voiced** when its band energy is ``Configuration/onsetDecibels`` over the floor,
///   above ``Configuration/silenceDecibels`` (full scale), at least ``Configuration/bandShare``
///   of the hop's energy (a voice lives in the band; hiss and rumble do not), and the band
///   repeats at a voice's pitch (``Configuration/periodicity``: a vowel does; a new noise that
///   the floor has not caught up with yet does not).
/// - The loud hops just before a voice's first voiced hop are heard too (a word's first
///   consonant), up to ``Configuration/onsetReach``.
/// - Voice is **active** from the second voiced hop within three, until
///   ``Configuration/hangover`` after the last voiced hop (the pauses between words).
///
/// Feed blocks as they come (``feed(_:sampleRate:start:)``) and ask about any instant heard
/// (``activity(at:)``): instants before the first sample or after the last are *not heard*
/// (`nil`), so audio that starts late or stops is said, not guessed.
public struct VoiceActivityDetector: Sendable {
    /// The detector's knobs.
    public struct Configuration: Sendable, Hashable {
        /// Seconds per decision.
        public var hop = 0.02
        /// The voice band's edges, Hz.
        public var bandLow = 200.0
        /// The voice band's upper edge, Hz.
        public var bandHigh = 3500.0
        /// How far over the floor a voiced hop's band energy is, dB.
        public var onsetDecibels = 9.0
        /// Quieter than this (dB of full scale) is never a voice.
        public var silenceDecibels = -62.0
        /// The least share of a voiced hop's energy in the band (0…1).
        public var bandShare = 0.5
        /// How periodic a voiced hop is: the least normalised autocorrelation of the band, over
        /// the pitches of a voice (``lowestPitch``…``highestPitch``). Vowels and voiced
        /// consonants repeat at the voice's pitch; noise, hiss and fricatives do not.
        public var periodicity = 0.5
        /// The lowest pitch of a voice, Hz.
        public var lowestPitch = 65.0
        /// The highest pitch of a voice, Hz.
        public var highestPitch = 400.0
        /// How far back a voice's onset reaches: hops just before the first periodic one that
        /// were as loud (a word's first consonant: "s", "f", "t") are heard too, seconds.
        public var onsetReach = 0.25
        /// How long voice stays active after the last voiced hop, seconds.
        public var hangover = 0.2
        /// Over how long the floor is the lowest band energy, seconds.
        public var floorSpan = 2.0
        /// Creates the defaults.
        public init() {}
    }

    /// What was heard at one instant.
    public struct Voice: Sendable, Hashable {
        /// Whether a voice is heard (hangover included).
        public var active: Bool
        /// How loud the voice band was over the floor, dB (0 or more).
        public var level: Double
    }

    /// The knobs in use.
    public let configuration: Configuration
    private var rate = 0
    private var hopLength = 0
    private var bandFilter = (BiquadSection.identity, BiquadSection.identity)
    /// Every `decimation`-th filtered sample (about 8 kHz): the last two hops', for the pitch test.
    private var decimation = 1
    private var pitchWindow: [Float] = []
    private var decimationPhase = 0
    /// Whether each of the last hops was loud enough (over the floor) to start a voice.
    private var loudHops: [Bool] = []
    private var pending: [Float] = []
    /// When the next hop (the first of `pending`) starts, seconds.
    private var nextHop = 0.0
    private var heardFrom: Double?
    private var recentEnergies: [(time: Double, energy: Double)] = []
    private var voicedRun = 0
    private var lastVoiced: Double?
    /// Decisions by hop, in time order: (hop start, active, level).
    private var decisions: [(time: Double, active: Bool, level: Double)] = []

    /// Creates a detector.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The first instant heard, seconds; `nil` before any sound.
    public var firstHeard: Double? { heardFrom }
    /// The end of the last full hop heard, seconds; `nil` before any.
    public var heardUntil: Double? { decisions.last.map { $0.time + configuration.hop } }

    /// Hears `block` (its channels mixed to one).
    public mutating func feed(_ block: AudioBlock) {
        feed(block.mono(), sampleRate: block.sampleRate, start: block.start.seconds)
    }

    /// Hears `samples` (one channel, −1…1) at `sampleRate`, the first at `start` seconds. A block
    /// that does not follow the last one (a gap, or a new rate) starts afresh at its own time.
    public mutating func feed(_ samples: [Float], sampleRate: Int, start: Double) {
        guard sampleRate > 0, !samples.isEmpty else { return }
        let c = configuration
        let expected = nextHop + Double(pending.count) / Double(max(rate, 1))
        if sampleRate != rate || heardFrom == nil || abs(start - expected) > c.hop {
            if sampleRate != rate {
                rate = sampleRate
                hopLength = max(1, Int((c.hop * Double(sampleRate)).rounded()))
                let nyquist = Double(sampleRate) / 2
                bandFilter = (BiquadSection.highPass(frequency: min(c.bandLow, nyquist * 0.45), sampleRate: sampleRate),
                              BiquadSection.lowPass(frequency: min(c.bandHigh, nyquist * 0.9), sampleRate: sampleRate))
                decimation = max(1, sampleRate / 8000)
            }
            pending.removeAll(keepingCapacity: true)
            pitchWindow.removeAll(keepingCapacity: true)
            nextHop = start
            if heardFrom == nil { heardFrom = start }
        }
        pending.append(contentsOf: samples)
        var offset = 0
        while pending.count - offset >= hopLength {
            var band = 0.0, all = 0.0
            for i in offset..<(offset + hopLength) {
                let x = Double(pending[i])
                let y = bandFilter.1.run(bandFilter.0.run(x))
                band += y * y
                all += x * x
                decimationPhase += 1
                if decimationPhase >= decimation {
                    decimationPhase = 0
                    pitchWindow.append(Float(y))
                }
            }
            offset += hopLength
            // Two hops (40 ms) of the band at about 8 kHz: room for two periods of a low voice.
            let keep = 2 * max(1, hopLength / decimation)
            if pitchWindow.count > keep { pitchWindow.removeFirst(pitchWindow.count - keep) }
            decide(band: band / Double(hopLength), all: all / Double(hopLength), at: nextHop)
            nextHop += Double(hopLength) / Double(rate)
        }
        pending.removeFirst(offset)
    }

    private mutating func decide(band: Double, all: Double, at time: Double) {
        let c = configuration
        recentEnergies.removeAll { time - $0.time > c.floorSpan }
        recentEnergies.append((time, band))
        let floor = max(recentEnergies.min { $0.energy < $1.energy }?.energy ?? band, 1e-12)
        let overFloor = 10 * log10(max(band, 1e-12) / floor)
        let loud = overFloor >= c.onsetDecibels && 10 * log10(max(band, 1e-12)) >= c.silenceDecibels
        let voiced = loud && band >= c.bandShare * all && periodicity() >= c.periodicity
        voicedRun = voiced ? voicedRun + 1 : max(0, voicedRun - 1)
        let wasActive = lastVoiced.map { time - $0 <= c.hangover } ?? false
        if voiced && (voicedRun >= 2 || wasActive) { lastVoiced = time }
        let active = lastVoiced.map { time - $0 <= c.hangover } ?? false
        if active && !wasActive {
            // The onset reaches back over the loud hops just before it (a word's first consonant).
            var k = decisions.count - 1, reach = Int((c.onsetReach / c.hop).rounded())
            while k >= 0, reach > 0, loudHops.count > k, loudHops[k], !decisions[k].active, time - decisions[k].time <= c.onsetReach {
                decisions[k].active = true
                k -= 1
                reach -= 1
            }
        }
        decisions.append((time, active, active ? max(0, overFloor) : 0))
        loudHops.append(loud)
        if loudHops.count > decisions.count { loudHops.removeFirst(loudHops.count - decisions.count) }
    }

    /// The highest normalised autocorrelation of the band over the last two hops at the lags of
    /// a voice's pitches (0…1; 0 without enough samples).
    private func periodicity() -> Double {
        let c = configuration
        let rate = Double(rate) / Double(decimation)
        let shortest = max(2, Int(rate / c.highestPitch)), longest = Int(rate / c.lowestPitch)
        let n = pitchWindow.count
        guard n > longest + 16 else { return 0 }
        var best = 0.0
        pitchWindow.withUnsafeBufferPointer { x in
            for lag in shortest...longest {
                var xy: Float = 0, xx: Float = 0, yy: Float = 0
                for i in 0..<(n - lag) {
                    let a = x[i], b = x[i + lag]
                    xy += a * b
                    xx += a * a
                    yy += b * b
                }
                guard xx > 0, yy > 0 else { continue }
                best = max(best, Double(xy / (xx * yy).squareRoot()))
            }
        }
        return best
    }

    /// What was heard at `time` (seconds); `nil` when that instant was not heard (before the
    /// first sound, after the last full hop, or in a gap between blocks).
    public func activity(at time: Double) -> Voice? {
        guard let last = decisions.last, time < last.time + configuration.hop, let first = decisions.first,
              time >= first.time
        else { return nil }
        var lo = 0, hi = decisions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if decisions[mid].time <= time { lo = mid + 1 } else { hi = mid }
        }
        let d = decisions[max(0, lo - 1)]
        guard time - d.time < configuration.hop * 1.5 else { return nil }
        return Voice(active: d.active, level: d.level)
    }

    /// What was heard at `time`; when the sound lags the pictures (a microphone's buffers
    /// arrive a little after the frame they belong to) by up to `lag` seconds, what was heard
    /// last. `nil` when nothing was heard that recently.
    public func latest(at time: Double, lag: Double = 0.2) -> Voice? {
        if let v = activity(at: time) { return v }
        guard let until = heardUntil, time >= until, time - until <= lag else { return nil }
        return activity(at: until - configuration.hop / 2)
    }

    /// Forgets decisions older than `time`.
    public mutating func forget(before time: Double) {
        if let k = decisions.firstIndex(where: { $0.time >= time }), k > 0 {
            decisions.removeFirst(k)
            loudHops.removeFirst(min(k, loudHops.count))
        }
    }

    /// The stretches of voice in a whole recording (one channel): (start, end) in seconds from
    /// `start`, in order.
    public static func segments(
        _ samples: [Float], sampleRate: Int, start: Double = 0, configuration: Configuration = Configuration()
    ) -> [ClosedRange<Double>] {
        var v = VoiceActivityDetector(configuration: configuration)
        v.feed(samples, sampleRate: sampleRate, start: start)
        var out: [ClosedRange<Double>] = []
        var open: Double?
        for d in v.decisions {
            if d.active, open == nil { open = d.time }
            if !d.active, let o = open {
                out.append(o...d.time)
                open = nil
            }
        }
        if let o = open, let last = v.decisions.last { out.append(o...(last.time + configuration.hop)) }
        return out
    }
}

/// A second-order IIR section (the audio cookbook's high- and low-pass, Q = 1/√2).
struct BiquadSection: Sendable {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var z1 = 0.0, z2 = 0.0

    static let identity = BiquadSection()

    static func highPass(frequency: Double, sampleRate: Int) -> BiquadSection {
        let (cosw, alpha) = terms(frequency, sampleRate)
        let a0 = 1 + alpha
        return BiquadSection(b0: (1 + cosw) / 2 / a0, b1: -(1 + cosw) / a0, b2: (1 + cosw) / 2 / a0,
                             a1: -2 * cosw / a0, a2: (1 - alpha) / a0)
    }

    static func lowPass(frequency: Double, sampleRate: Int) -> BiquadSection {
        let (cosw, alpha) = terms(frequency, sampleRate)
        let a0 = 1 + alpha
        return BiquadSection(b0: (1 - cosw) / 2 / a0, b1: (1 - cosw) / a0, b2: (1 - cosw) / 2 / a0,
                             a1: -2 * cosw / a0, a2: (1 - alpha) / a0)
    }

    private static func terms(_ f: Double, _ rate: Int) -> (Double, Double) {
        let w = 2 * Double.pi * f / Double(rate)
        return (cos(w), sin(w) / (2 * 0.5.squareRoot()))
    }

    /// Filters one sample (transposed direct form II).
    mutating func run(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}
