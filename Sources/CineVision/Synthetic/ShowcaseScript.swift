// ShowcaseScript: when the synthetic scene's carrier raises the cup toward the lens to show it,
// and how far it is raised at every instant — the truth a showcase rule is measured against.

/// A seeded schedule of showings: the cup is raised over ``riseTime`` from the carrier's chest
/// to in front of their face, 70 cm nearer the lens than they stand, held there 1.5–3 s, lowered over
/// ``riseTime`` and kept down 2.5–4 s before the next. The first showing starts 1.5–2.5 s in;
/// the last is lowered at least 0.5 s before the scene ends.
public struct ShowcaseScript: Sendable, Hashable {
    /// One showing, scene seconds: raising from `start`, fully up from `start + riseTime` until
    /// `lowering`, down again at `lowering + riseTime`.
    public struct Showing: Sendable, Hashable {
        /// When the cup starts to rise, scene seconds.
        public let start: Double
        /// When it starts to come down, scene seconds.
        public let lowering: Double
    }

    /// Seconds to raise or to lower the cup.
    public static let riseTime = 0.5
    /// The showings, in time order.
    public let showings: [Showing]

    /// The schedule of a scene of `duration` seconds.
    public init(duration: Double, seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x5E0_CA5E)
        var out: [Showing] = []
        var t = random.uniform(1.5, 2.5)
        while true {
            let lowering = t + Self.riseTime + random.uniform(1.5, 3)
            guard lowering + Self.riseTime <= duration - 0.5 else { break }
            out.append(Showing(start: t, lowering: lowering))
            t = lowering + Self.riseTime + random.uniform(2.5, 4)
        }
        showings = out
    }

    /// How far the cup is raised at scene time `t`: 0 (at the chest) … 1 (held up to the lens),
    /// eased at both ends.
    public func raise(at t: Double) -> Double {
        for s in showings where t >= s.start && t <= s.lowering + Self.riseTime {
            let up = SceneTexturePatterns.smoothstep(s.start, s.start + Self.riseTime, t)
            let down = SceneTexturePatterns.smoothstep(s.lowering, s.lowering + Self.riseTime, t)
            return up - down
        }
        return 0
    }
}
