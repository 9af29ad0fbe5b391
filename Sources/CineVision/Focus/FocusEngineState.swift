// FocusEngineState: everything the focus engine remembers between frames, in one place — the
// subjects it has seen, the decisions in force, the frames awaiting output and the rack.
import CineMedia

/// The state of a ``FocusEngine``; a value, so a copy is a snapshot.
public struct FocusEngineState: Sendable, Hashable {
    /// What the engine remembers of one subject (a detection group).
    public struct Subject: Sendable, Hashable {
        /// Its detection group.
        public var group: Int
        /// When it was first seen in its current appearance.
        public var firstSeen: Timestamp
        /// When it was last seen.
        public var lastSeen: Timestamp
        /// Its score in the last frame it was seen.
        public var score: Double
        /// Whether it faced the camera in the last frame it was seen.
        public var facing: Bool
    }

    /// A frame waiting for the lookahead to pass.
    struct Pending: Sendable, Hashable {
        var time: Timestamp
        var detections: Detections
        var sceneDisparity: Double?
    }

    /// A rack in progress.
    struct Rack: Sendable, Hashable {
        var from: Double
        var start: Timestamp
        var end: Timestamp
    }

    /// Subjects seen recently, by group.
    public internal(set) var subjects: [Subject] = []
    /// The subject of the automatic engine's current choice.
    public internal(set) var baseGroup: Int?
    /// Time of the last frame output (for the follow speed).
    public internal(set) var emitted: Timestamp?
    /// When that choice was made.
    public internal(set) var baseSince: Timestamp = .zero
    /// Whether the engine has racked to the scene since its last subject left.
    var restingOnScene = false
    /// The last base decision.
    public internal(set) var lastBase: FocusDecision?
    /// A subject that lost focus because it looked away (it gets a bonus when it faces again).
    public internal(set) var lookedAway: Int?
    /// The user decision in force, if any.
    public internal(set) var user: FocusDecision?
    /// The group of a user decision on a detection, for when the detection itself is gone.
    var userGroup: Int?
    /// The newest frame time seen.
    public internal(set) var newest: Timestamp?
    /// The newest frame's detections (what user commands refer to).
    public internal(set) var newestDetections: Detections = []
    /// A change of the decision in force, with the group of a detection target.
    struct Change: Sendable, Hashable {
        var effective: EffectiveFocusDecision
        var group: Int?
    }

    /// Changes of the decision in force not yet reached by the output.
    var changes: [Change] = []
    /// Frames waiting for the lookahead.
    var pending: [Pending] = []
    /// The decision focus is on or racking to, at the output's time.
    public internal(set) var focusDecision: FocusDecision?
    /// The group of ``focusDecision``'s target, when it is a detection.
    var focusGroup: Int?
    /// The focus disparity of the last output frame.
    public internal(set) var focusDisparity: Double?
    var rack: Rack?
    /// With the speaker rule: since when each group now speaking has been speaking.
    var speakingSince: [Int: Timestamp] = [:]
    /// With the speaker rule: the group that spoke last (focus stays on it through silence).
    public internal(set) var speaker: Int?
    /// The detection shown to the camera (with `shown`) that has focus, if any.
    var showingID: Int?
    /// The disparity of the holder's face when the showing began (their face may be hidden
    /// behind what they hold when it is lowered).
    var holderDisparity: Double?
    /// After a showing, the holder whose face is not yet seen again, and since when.
    var awaitingHolder: AwaitedHolder?

    /// A holder awaited after a showing.
    struct AwaitedHolder: Sendable, Hashable {
        var group: Int
        var since: Timestamp
    }
}
