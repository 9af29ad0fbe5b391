// Detection: one object found in one frame, with a stable identity across frames.

/// A rectangle in normalised coordinates: 0…1 on both axes, origin at the top left.
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    /// Creates a rectangle.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole frame.
    public static let frame = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// The part of the rectangle inside `window` (0 wide or high where they do not overlap).
    public func clipped(to window: NormalizedRect) -> NormalizedRect {
        let x0 = min(window.x + window.width, max(window.x, x)), y0 = min(window.y + window.height, max(window.y, y))
        let x1 = min(window.x + window.width, max(x0, x + width)), y1 = min(window.y + window.height, max(y0, y + height))
        return NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The share of the rectangle's area inside `window`, 0…1 (0 for an empty rectangle).
    public func share(inside window: NormalizedRect) -> Double {
        let c = clipped(to: window)
        return width * height > 0 ? c.width * c.height / (width * height) : 0
    }
}

/// What kind of object a detection is.
public enum DetectionType: String, Sendable, Codable, CaseIterable {
    case humanFace, humanBody, catFace, dogFace, salientObject, fixedFocus, custom
}

/// How strongly the user asked for focus on an object.
public enum FocusMode: String, Sendable, Codable, CaseIterable {
    /// Not in focus by the user's choice (only reported).
    case none
    /// In focus; the automatic logic may still rack away.
    case weak
    /// In focus until the next user decision.
    case strong
}

/// Which way an object faces, as far as the detector can tell.
public enum Facing: String, Sendable, Codable, CaseIterable {
    /// Towards the camera (a frontal face).
    case towards
    /// Looking away (a profile, or the face lost while the body stays).
    case away
    /// Not known (bodies, salient objects).
    case unknown
}

/// One object in one frame.
public struct Detection: Sendable, Hashable, Codable {
    /// Stable across frames for the same object.
    public var id: Int
    /// Ties together the detections of one subject (a person's face and body).
    public var groupID: Int
    public var type: DetectionType
    /// Bounds in the reference view, normalised.
    public var bounds: NormalizedRect
    /// 0…1.
    public var confidence: Double
    /// Robust disparity of the object, in full-resolution pixels, if known.
    public var disparity: Double?
    public var focusMode: FocusMode
    /// Which way the object faces, if the detector knows (`nil` for detections from older producers).
    public var facing: Facing?
    /// Whether this face is speaking (faces whose mouth a speaker detector watches; `nil` where
    /// nothing watched it).
    public var speaking: Bool?
    /// How sure the speaker detector is that this face is speaking, 0…1 (`nil` with ``speaking``).
    public var speakingScore: Double?
    /// While ``speaking``: for how long, in seconds, this face's mouth has been seen moving in
    /// its current turn (from its first opening to its latest) — what a director waits on
    /// before racking to a new speaker, so that a cough or a one-word reply does not rack focus.
    public var speakingFor: Double?
    /// Whether this object is being shown to the camera: held up nearer the lens than the face of
    /// whoever holds it (the detector's `showcase`; `nil` where nothing watched for it).
    public var shown: Bool?
    /// For a shown object found without a disparity map (one lens): how many times nearer the
    /// lens it is than its holder's face, from the hand's apparent size (`nil` otherwise).
    public var nearness: Double?

    /// Creates a detection.
    public init(id: Int, groupID: Int? = nil, type: DetectionType, bounds: NormalizedRect,
                confidence: Double = 1, disparity: Double? = nil, focusMode: FocusMode = .none,
                facing: Facing? = nil) {
        self.facing = facing
        self.id = id
        self.groupID = groupID ?? id
        self.type = type
        self.bounds = bounds
        self.confidence = confidence
        self.disparity = disparity
        self.focusMode = focusMode
    }
}

/// The detections of one frame.
public typealias Detections = [Detection]

/// Conditions that keep the cinematic engine from working well.
public struct SceneStatus: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The scene is too dark (a dark room, a covered lens).
    public static let notEnoughLight = SceneStatus(rawValue: 1)
}
