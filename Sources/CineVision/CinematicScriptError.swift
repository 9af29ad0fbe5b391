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

    public var description: String {
        switch self {
        case .unsupportedVersion(let v):
            return
                "cinematic script version \(v) is not supported (this build reads version \(CinematicScript.currentVersion)); update cinegraph"
        case .corrupt(let why): return "not a cinematic script: \(why)"
        case .notAUserDecision: return "only user decisions (weakUser, strongUser) can be added or removed"
        case .decisionNotFound(let d): return "no \(d.kind.rawValue) decision at \(d.time) in the script"
        case .fNumberOutOfRange(let f, let r):
            return "f-number \(f) is out of range \(r.lowerBound)...\(r.upperBound)"
        case .frameOutOfOrder: return "frames must be appended in time order"
        case .unknownDetection(let id): return "no detection with id \(id) in the current frame"
        }
    }
}
