// SpeakingDetector: who is talking, from how each tracked face's mouth opens and closes over
// the last moments (the face landmark model's inner lips), gated by the voice the microphone hears.

/// Decides, per tracked face, whether it is speaking from its mouth's movement.
///
/// Feed it each detection round's mouth openings (``FaceMesh/mouthOpening(_:)``: the gap between
/// the inner lips over the face's height) by track ID. A face's *closed* level is a low
/// percentile of its openings over the last ``Configuration/baselineSpan`` seconds, so a face that
/// rests with its lips apart, a beard or a smile is its own zero. An **opening** is a sample at
/// least ``Configuration/openingThreshold`` above that level. A face is speaking while it opened
/// within the last ``Configuration/hold`` seconds (which bridges the closures between syllables
/// and words), has opened at least twice in a row, each within the hold of the last, and its opening changed by at
/// least the threshold within the last ``Configuration/movementSpan`` — a mouth that moves, not
/// one held open. The score grows with the latest opening's size.
///
/// With the sound (``state(of:at:voice:)``, the voice level given to each
/// ``observe(id:time:opening:voiceLevel:)``), the voice gates the lips: no voice, no speaker; a
/// voice, and a face speaks from its first clear opening if its mouth follows the voice.
///
/// Causal (live): a speaker is reported from the second opening (≈ 0.2 s into speech at 10
/// detection rounds a second; the first with a voice heard) until ``Configuration/hold`` after
/// the last one. Deterministic; no allocation beyond a few samples a face.
public struct SpeakingDetector: Sendable {
    /// The detector's knobs.
    public struct Configuration: Sendable, Hashable {
        /// How far above the face's closed level an opening is, in face heights (the inner lips
        /// of a closed mouth are about 0.01 apart, a syllable's opening 0.02–0.05).
        public var openingThreshold = 0.009
        /// How long a face counts as speaking after its last opening, seconds.
        public var hold = 0.27
        /// Over how long the closed level is measured, seconds.
        public var baselineSpan = 3.0
        /// Which percentile of the span's openings is the closed level (0…1).
        public var baselinePercentile = 0.15
        /// Openings in a row (each within the hold of the last) before the face counts as speaking.
        public var minimumOpenings = 2
        /// Over how long the mouth must have moved (its opening changed by the threshold), seconds.
        public var movementSpan = 0.6
        /// The longest gap between openings that still continues a streak (a turn's pauses
        /// between words), seconds: how long the mouth has moved in a turn (``Speaking/evidence``)
        /// keeps counting across them.
        public var streakGap = 0.6
        /// Over how long a face's openings are matched against the voice's loudness, seconds.
        public var syncSpan = 1.2
        /// Readings with a known voice level a face needs in the span before the match counts.
        public var syncSamples = 8
        /// While a voice is heard, a face whose openings correlate with its loudness less than
        /// this (Pearson, −1…1) over the span is not the one speaking: a listener chewing or
        /// smiling while someone else talks.
        public var minimumSync = 0.25
        /// Creates the defaults.
        public init() {}
    }

    /// A face's state at one instant.
    public struct Speaking: Sendable, Hashable {
        /// Whether the face is speaking.
        public var speaking: Bool
        /// How sure, 0…1: the size of the last opening against twice the threshold while
        /// speaking, fading over the hold; 0 when silent.
        public var score: Double
        /// While speaking: from the streak's first opening to its latest, seconds (how long the
        /// mouth has been seen moving in this turn); 0 when silent.
        public var evidence: Double
    }

    private struct Face: Sendable {
        /// Openings, with how loud the voice was (dB over the room's floor) when each was read.
        var samples: [(time: Double, opening: Double, level: Double?)] = []
        var lastOpening: (time: Double, excess: Double)?
        var streakStart: Double?
        var streakOpenings = 0
        /// Openings in a row, each within the hold of the one before (what the flag needs).
        var runOpenings = 0
        var lastSeen = 0.0
    }

    /// The knobs in use.
    public let configuration: Configuration
    private var faces: [Int: Face] = [:]

    /// Creates a detector.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Records face `id`'s mouth opening at `time` (seconds, increasing per face), and how loud
    /// the voice was then (``VoiceActivityDetector/Voice/level``; `nil` when no sound is heard).
    public mutating func observe(id: Int, time: Double, opening: Double, voiceLevel: Double? = nil) {
        let c = configuration
        var f = faces[id] ?? Face()
        f.samples.removeAll { time - $0.time > c.baselineSpan }
        f.samples.append((time, opening, voiceLevel))
        f.lastSeen = time
        let closed = Self.percentile(f.samples.map(\.opening), c.baselinePercentile)
        let excess = opening - closed
        if excess >= c.openingThreshold {
            if let last = f.lastOpening, time - last.time <= c.streakGap, f.streakStart != nil {
                f.streakOpenings += 1
            } else {
                f.streakStart = time
                f.streakOpenings = 1
            }
            f.runOpenings = f.lastOpening.map { time - $0.time <= c.hold } == true ? f.runOpenings + 1 : 1
            f.lastOpening = (time, excess)
        } else if let last = f.lastOpening, time - last.time > c.streakGap {
            f.streakStart = nil
            f.streakOpenings = 0
        }
        faces[id] = f
    }

    /// Face `id`'s state at `time` (at or after its last observation); `nil` for a face never observed.
    ///
    /// `voice` is what the microphone heard at `time` (``VoiceActivityDetector``):
    /// - `false` (no voice): no face is speaking, however its lips move (chewing, a smile,
    ///   silent mouthing);
    /// - `true`: a face speaks from its first clear opening (twice the threshold: the voice
    ///   confirms what one opening suggests), unless its openings do not follow the voice's
    ///   loudness over ``Configuration/syncSpan`` (a listener chewing while someone talks;
    ///   ``Configuration/minimumSync``);
    /// - `nil` (no sound, or not heard yet): the lips decide alone.
    public func state(of id: Int, at time: Double, voice: Bool? = nil) -> Speaking? {
        faces[id].map { evaluate($0, at: time, voice: voice).speaking }
    }

    /// The states of faces `ids` at `time` (``state(of:at:voice:)``), seen together: while a
    /// voice is heard, of several faces that pass, only the one whose mouth follows the voice
    /// best is speaking (one voice, one speaker: the others are listeners whose lips moved).
    /// Faces never observed are left out.
    public func states(of ids: [Int], at time: Double, voice: Bool? = nil) -> [Int: Speaking] {
        var out: [Int: Speaking] = [:]
        var best: (id: Int, sync: Double)?
        var passing = 0
        for id in ids {
            guard let f = faces[id] else { continue }
            let e = evaluate(f, at: time, voice: voice)
            out[id] = e.speaking
            guard e.speaking.speaking else { continue }
            passing += 1
            if let sync = e.sync, sync > best?.sync ?? -.infinity { best = (id, sync) }
        }
        guard voice == true, passing > 1, let best else { return out }
        for (id, s) in out where s.speaking && id != best.id { out[id] = Self.silent }
        return out
    }

    private static let silent = Speaking(speaking: false, score: 0, evidence: 0)

    /// Face `f`'s state at `time` and how well its mouth follows the voice (`nil` when not
    /// measured: no voice heard, or too few readings).
    private func evaluate(_ f: Face, at time: Double, voice: Bool?) -> (speaking: Speaking, sync: Double?) {
        let c = configuration
        if voice == false { return (Self.silent, nil) }
        let clear = f.lastOpening.map { $0.excess >= 2 * c.openingThreshold } ?? false
        // How well this mouth follows the voice; a mouth that does not is a listener's.
        let sync = voice == true ? Self.sync(f.samples, since: time - c.syncSpan, minimum: c.syncSamples) : nil
        if let sync, sync < c.minimumSync { return (Self.silent, sync) }
        // One clear opening is enough while the voice is heard (a listener's twitch is not clear).
        let needed = voice == true && clear ? 1 : c.minimumOpenings
        var lo = Double.infinity, hi = -Double.infinity
        for s in f.samples where time - s.time <= c.movementSpan {
            lo = min(lo, s.opening)
            hi = max(hi, s.opening)
        }
        guard let last = f.lastOpening, time - last.time <= c.hold, f.runOpenings >= needed,
              hi - lo >= c.openingThreshold
        else {
            return (Self.silent, sync)
        }
        let fade = 1 - 0.5 * max(0, time - last.time) / c.hold
        let score = max(0.5, min(1, last.excess / (2 * c.openingThreshold) * fade))
        return (Speaking(speaking: true, score: score, evidence: last.time - (f.streakStart ?? last.time)), sync)
    }

    /// How well a face's openings follow the voice's loudness: their Pearson correlation over
    /// the `samples` from `start` on with a known level; `nil` with fewer than `minimum` of
    /// them, or when either does not vary.
    static func sync(_ samples: [(time: Double, opening: Double, level: Double?)], since start: Double, minimum: Int)
        -> Double?
    {
        var n = 0.0, mx = 0.0, my = 0.0
        for s in samples where s.time >= start {
            guard let y = s.level else { continue }
            n += 1
            mx += s.opening
            my += y
        }
        guard n >= Double(minimum) else { return nil }
        mx /= n
        my /= n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for s in samples where s.time >= start {
            guard let y = s.level else { continue }
            sxy += (s.opening - mx) * (y - my)
            sxx += (s.opening - mx) * (s.opening - mx)
            syy += (y - my) * (y - my)
        }
        guard sxx > 1e-12, syy > 1e-9 else { return nil }
        return sxy / (sxx * syy).squareRoot()
    }

    /// Forgets faces not observed since `time`.
    public mutating func forget(before time: Double) {
        faces = faces.filter { $0.value.lastSeen >= time }
    }

    /// The `p` percentile (0…1) of `values` by selection (nearest rank).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(p * Double(sorted.count - 1) + 0.5))]
    }
}

extension FaceMesh {
    /// How far the mouth of `mesh` is open: the gap between the inner lips (points 13 and 14)
    /// over the face's height (forehead 10 to chin 152), so the same at any distance. About 0.01
    /// closed, 0.02–0.05 mid-syllable; 0 for a mesh without the points.
    public static func mouthOpening(_ mesh: FaceMeshResult) -> Double {
        let p = mesh.points
        guard p.count >= pointCount else { return 0 }
        let height = ((p[10].x - p[152].x) * (p[10].x - p[152].x) + (p[10].y - p[152].y) * (p[10].y - p[152].y)).squareRoot()
        guard height > 0 else { return 0 }
        let gap = ((p[13].x - p[14].x) * (p[13].x - p[14].x) + (p[13].y - p[14].y) * (p[13].y - p[14].y)).squareRoot()
        return gap / height
    }
}
