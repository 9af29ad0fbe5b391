// SyntheticSceneConfiguration: the knobs of a synthetic stereo scene — camera, timing, seed,
// sensor noise, subjects and an optional drop in light — and their validation.

extension SyntheticScene {
    /// A stretch of time during which the room goes dark.
    ///
    /// The light fades smoothly (over `min(0.5 s, duration/4)`) from full to ``level`` starting
    /// at ``start``, holds, and fades back so that it is full again at `start + duration`.
    /// Luma is multiplied by the light level and chroma pulled towards neutral by the same factor.
    public struct LightDrop: Sendable, Hashable {
        /// Scene time when the light starts to fall, seconds.
        public var start: Double
        /// Seconds from the start of the fall to full light again; 0 = no drop at all.
        public var duration: Double
        /// Light level at the bottom of the drop: 0 = black, 1 = no drop.
        public var level: Double

        /// Creates a light drop.
        public init(start: Double, duration: Double, level: Double) {
            self.start = start
            self.duration = duration
            self.level = level
        }
    }

    /// Everything that defines a synthetic scene; equal configurations render equal bytes.
    public struct Configuration: Sendable, Hashable {
        /// Width of each view in pixels.
        public var width: Int
        /// Height of each view in pixels.
        public var height: Int
        /// Frames per second; frame `i` shows time `i / fps`.
        public var fps: Double
        /// Chooses the layout of the set, the subjects' schedule and looks, and the noise pattern.
        public var seed: UInt64
        /// Distance between the two cameras, metres.
        public var baseline: Double
        /// Horizontal field of view of each camera, degrees.
        public var fieldOfViewDegrees: Double
        /// Length of the scene in seconds. The scene loops: time `t` shows the same instant as
        /// `t mod duration` (everyone has left before the end, so the loop starts empty again).
        public var duration: Double
        /// Standard deviation of the sensor noise added to luma, as a fraction of full scale
        /// (0.01 ≈ 2.5 of 255 levels); 0 = none.
        public var noise: Double
        /// An optional dark spell, for testing the "not enough light" status.
        public var lightDrop: LightDrop?
        /// How many people walk through the scene (0 ... 16).
        public var subjectCount: Int
        /// Whether the scene has props to track: a ball rolled along the sideboard and a cup the
        /// first subject carries (``SyntheticProp``; off by default, so scenes without them keep
        /// their bytes).
        public var props: Bool
        /// A talk scene: the subjects stand side by side facing the camera for the whole scene
        /// (at 1.3–2.6 m) and take turns speaking by a seeded script — their mouths open and
        /// close with the syllables, and the truth marks who is speaking
        /// (``SyntheticSubject/speaking``, ``SyntheticScene/speakingTurns``). Off by default.
        public var talk: Bool
        /// A showcase: the first subject holds the cup (as with ``props``) and raises it toward
        /// the lens at seeded times to show it, then lowers it again (``ShowcaseScript``,
        /// ``SyntheticScene/showcase``). Implies the props. Off by default.
        public var showcase = false
        /// In a talk scene, a listener chews during some long turns: their lips open and close
        /// about 1.6 times a second without a sound (``TalkScript/chews``). The truth keeps them
        /// silent. Off by default.
        public var chewing = false
        /// A wide shot: people walk through a courtyard far from the camera — whole figures,
        /// legs and arms swinging, 12–38 m away (50–150 pixels tall at 720p), in front of a wall
        /// at 60 m with two posts (``SubjectScript/walkers(count:duration:seed:characterCount:clothingCount:camera:)``).
        /// Off by default.
        public var wide = false

        /// Creates a configuration; the defaults are a 1280 × 720, 30 fps, 20 s scene with a
        /// 6.5 cm baseline, a 60° field of view, mild noise (1 % of full scale) and three subjects.
        public init(
            width: Int = 1280, height: Int = 720, fps: Double = 30, seed: UInt64 = 1,
            baseline: Double = 0.065, fieldOfViewDegrees: Double = 60, duration: Double = 20,
            noise: Double = 0.01, lightDrop: LightDrop? = nil, subjectCount: Int = 3, props: Bool = false,
            talk: Bool = false
        ) {
            self.talk = talk
            self.width = width
            self.height = height
            self.fps = fps
            self.seed = seed
            self.baseline = baseline
            self.fieldOfViewDegrees = fieldOfViewDegrees
            self.duration = duration
            self.noise = noise
            self.lightDrop = lightDrop
            self.subjectCount = subjectCount
            self.props = props
        }

        /// Checks every value; throws the first one out of range.
        public func validate() throws(SyntheticSceneError) {
            func check(_ ok: Bool, _ field: String, _ message: String) throws(SyntheticSceneError) {
                if !ok { throw SyntheticSceneError(field: field, message: message) }
            }
            try check(width >= 16 && width <= 16384, "width", "must be 16 ... 16384 pixels, got \(width)")
            try check(height >= 16 && height <= 16384, "height", "must be 16 ... 16384 pixels, got \(height)")
            try check(fps.isFinite && fps > 0 && fps <= 1000, "fps", "must be in (0, 1000], got \(fps)")
            try check(
                baseline.isFinite && baseline > 0 && baseline <= 1, "baseline",
                "must be in (0, 1] metres, got \(baseline)")
            try check(
                fieldOfViewDegrees >= 10 && fieldOfViewDegrees <= 150, "fieldOfViewDegrees",
                "must be 10 ... 150 degrees, got \(fieldOfViewDegrees)")
            try check(duration.isFinite && duration >= 1, "duration", "must be at least 1 second, got \(duration)")
            try check(noise >= 0 && noise <= 0.2, "noise", "must be 0 ... 0.2 (of full scale), got \(noise)")
            try check(subjectCount >= 0 && subjectCount <= 16, "subjectCount", "must be 0 ... 16, got \(subjectCount)")
            if let drop = lightDrop {
                try check(drop.level >= 0 && drop.level <= 1, "lightDrop.level", "must be 0 ... 1, got \(drop.level)")
                try check(
                    drop.duration.isFinite && drop.duration >= 0, "lightDrop.duration",
                    "must be 0 (no drop) or more seconds, got \(drop.duration)")
                try check(drop.start.isFinite, "lightDrop.start", "must be finite, got \(drop.start)")
            }
        }
    }
}
