// FocusEngineConfiguration: the knobs of the automatic focus engine — candidate score weights,
// dwell, hysteresis, minimum hold, lookahead and the rack law.

/// How the focus engine scores candidates, holds decisions and racks focus (docs/focus.md).
public struct FocusEngineConfiguration: Sendable, Hashable {
    /// How far ahead decisions are known, seconds: output frames are delayed by this much so
    /// racks start before the decision and land on time. 0 = live, racks start at the decision.
    public var lookahead: Double = 0
    /// How racks are timed and shaped.
    public var rack = FocusRack()
    /// A base decision holds at least this long before the engine prefers another subject, seconds.
    public var minimumHold: Double = 1.0
    /// A subject must have been seen this long before it can get focus, seconds.
    public var dwell: Double = 0.5
    /// The shorter dwell when nobody holds focus (the frame was empty, or its subject left), seconds:
    /// there is no subject to protect from a false start, and a focus puller racks to whoever
    /// walks in as soon as they are clearly there. 0 (the default): at first sight — the detector
    /// has already checked the face (its landmarks), and a stray hit is reported for a whole
    /// detection round, longer than any short dwell, so waiting only delays every real entrance.
    public var acquireDwell: Double = 0
    /// A challenger must beat the subject in focus by this score margin.
    public var switchMargin: Double = 0.15
    /// Bonus of the subject in focus (hysteresis).
    public var stickiness: Double = 0.25
    /// Weight of a face towards the camera.
    public var facingWeight: Double = 1.0
    /// Weight of size: √area, saturating at a third of the frame.
    public var sizeWeight: Double = 0.3
    /// Weight of nearness: disparity relative to the nearest candidate.
    public var nearnessWeight: Double = 0.2
    /// Weight of centrality: 1 at the centre, 0 at a corner.
    public var centralityWeight: Double = 0.2
    /// Weight of persistence: grows over ``persistenceSpan``.
    public var persistenceWeight: Double = 0.1
    /// Seconds for persistence to saturate.
    public var persistenceSpan: Double = 3
    /// Bonus of a newcomer once its dwell is over, fading over ``newnessSpan``.
    public var newnessWeight: Double = 1.0
    /// Seconds over which the newcomer bonus fades.
    public var newnessSpan: Double = 3
    /// Bonus of a subject that lost focus because it looked away, once it faces the camera again.
    public var returnWeight: Double = 0.8
    /// A subject unseen this long is forgotten (it will be new again), seconds. When the subject
    /// in focus is forgotten and nobody else qualifies, focus racks to the scene (the plane at
    /// the centre), as a focus puller does when the frame empties.
    public var forgetAfter: Double = 0.5
    /// Once the subject in focus is forgotten, how long focus stays where it was while nobody
    /// is in view before it racks to the scene, seconds: someone walking in within it gets
    /// focus straight from there, not by way of the background.
    public var emptyHold: Double = 0.5
    /// Fastest change of focus while following a subject, disparity pixels per second. A
    /// subject's measured disparity can jump when its box slips onto the background (leaving
    /// the frame, occlusions); a real subject does not move that fast in depth, so focus
    /// follows at most this fast. 0 = follow the measurement exactly.
    public var followSpeed: Double = 120
    /// The share of the picture a stabilizer after the focus decision crops away (its mode's
    /// crop, centred), 0…0.5: the subjects are chosen from what the take will show — someone
    /// less than half inside the kept picture is not a candidate (a face just outside a
    /// stabilized take's frame does not pull focus off the person it shows). 0 = the whole
    /// frame.
    public var crop: Double = 0
    /// The rule that picks the subject: the most prominent (the default) or the speaker.
    public var follow = FocusFollow.prominent
    /// With ``follow`` `.speaker`, for how long someone's mouth must have been seen moving in
    /// their turn (``CineMedia/Detection/speakingFor``) before focus racks to them, seconds: a
    /// cough or a one-word reply does not rack focus.
    public var speakerDwell: Double = 0.3
    /// With ``follow`` `.speaker` and a lookahead, the dwell used instead (when longer, and as far
    /// as the lookahead leaves room for the rack dated back before the first word: lookahead −
    /// lead − the longest rack − 0.2 s), seconds: a longer dwell then costs nothing and lets
    /// short replies go by.
    public var lookaheadSpeakerDwell: Double = 0.7
    /// With ``follow`` `.speaker` and a lookahead, how long before the new speaker's first
    /// movement of the mouth the rack lands, seconds (it may not reach further back than the
    /// lookahead allows).
    public var speakerLead: Double = 0.1
    /// Whether the engine keeps every frame in its ``FocusEngine/script`` (decisions are always kept).
    public var recordsFrames = true

    /// The defaults.
    public init() {}
}
