// CinematicScriptError: what can go wrong editing, loading or commanding a cinematic script.

/// A script edit, load or focus command that cannot be carried out, with what to do.
public enum CinematicScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON names a version this build does not read.
    case unsupportedVersion(Int)
    /// The data is not a cinematic script.
    case corrupt(String)
    /// A base decision passed where a user decision is needed.
    case notAUserDecision
    /// The decision to remove is not in the script.
    case decisionNotFound(FocusDecision)
    /// An f-number outside the supported range.
    case fNumberOutOfRange(Double, ClosedRange<Double>)
    /// A frame older than the last one.
    case frameOutOfOrder
    /// A focus command naming a detection that is not in the current frame.
    case unknownDetection(Int)
    /// A decision refers to a track (detection ID or group) the script does not have.
    case missingTrack(Int)
    /// A track to remove is not a user track (detected tracks come from the frames).
    case notAUserTrack(Int)
    /// A fixed or custom track that cannot be used (no samples, out of order, out of 0…1).
    case invalidTrack(String)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v):
            return
                "cinematic script version \(v) is not supported (this build reads versions \(CinematicScript.readableVersions.lowerBound)...\(CinematicScript.currentVersion)); update cinegraph"
        case .corrupt(let why): return "not a cinematic script: \(why)"
        case .notAUserDecision: return "only user decisions (weakUser, strongUser) can be added or removed"
        case .decisionNotFound(let d): return "no \(d.kind.rawValue) decision at \(d.time) in the script"
        case .fNumberOutOfRange(let f, let r):
            return "f-number \(f) is out of range \(r.lowerBound)...\(r.upperBound)"
        case .frameOutOfOrder: return "frames must be appended in time order"
        case .unknownDetection(let id): return "no detection with id \(id) in the current frame"
        case .missingTrack(let id):
            return
                "a decision refers to track \(id), which the script does not have; add the track first or remove the decision"
        case .notAUserTrack(let id):
            return "track \(id) is not a fixed or custom track; only those can be removed"
        case .invalidTrack(let why): return "invalid track: \(why)"
        }
    }
}
