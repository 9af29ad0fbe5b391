// FocusEngineOutput: what the focus engine says about one output frame — the focus state and
// the detections annotated with their focus modes.
import CineMedia

/// The focus of one frame, as the engine hands it out (after the lookahead).
public struct FocusEngineOutput: Sendable, Hashable {
    /// The frame's time (``FocusEngineConfiguration/lookahead`` behind the newest input).
    public var time: Timestamp
    /// Focal plane, target and rack progress (``FocusState/fNumber`` set from the script).
    public var focus: FocusState
    /// The frame's detections, the one in focus marked weak or strong (see docs/focus.md).
    public var detections: Detections
}
