// TrackerObservation: one raw detection handed to the ObjectTracker (before it has an identity).
import CineMedia

/// A detection of one frame as the detector sees it: type, bounds, confidence and facing, no ID yet.
public struct TrackerObservation: Sendable, Hashable {
    /// Object type.
    public var type: DetectionType
    /// Bounds, normalised to the frame.
    public var bounds: NormalizedRect
    /// 0…1; at or above the tracker's high threshold it can start a track, below it only
    /// continues one (ByteTrack's second pass).
    public var confidence: Double
    /// Which way it faces (a frontal or a profile cascade hit), if known.
    public var facing: Facing
    /// A known disparity (full-resolution pixels); otherwise measured from the disparity map.
    public var disparity: Double?
    /// How far a face's mouth is open (``FaceMesh/mouthOpening(_:)``), when its mesh was read.
    public var mouthOpening: Double?
    /// Found by a detector that also fires on things that never move (HOG: poles, door frames,
    /// paving): a track it starts is reported only while it has moved lately
    /// (``ObjectTracker/Configuration/confirmingMotion``, ``ObjectTracker/Configuration/stillRounds``),
    /// or once an observation without this flag has matched it, or while a face shares its group.
    public var mustMove = false
    /// What the object looks like (people's bodies), when the detector measured it: tells two
    /// people apart where their boxes meet or one was lost (``ObjectTracker/Configuration/appearanceGate``).
    public var appearance: PersonAppearance?

    /// Creates an observation.
    public init(type: DetectionType, bounds: NormalizedRect, confidence: Double = 1, facing: Facing = .unknown,
                disparity: Double? = nil, mouthOpening: Double? = nil) {
        self.mouthOpening = mouthOpening
        self.type = type
        self.bounds = bounds
        self.confidence = confidence
        self.facing = facing
        self.disparity = disparity
    }
}
