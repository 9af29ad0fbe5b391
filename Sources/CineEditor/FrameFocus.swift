// FrameFocus: what the script decides for one frame of the take — the focus disparity, the
// subject it follows and the kind of decision in force — for the editor's rectangles and plot.
import CineVision

/// The focus of one frame under the current script.
public struct FrameFocus: Sendable, Hashable, Codable {
    /// Focus disparity, in full-resolution pixels.
    public var disparity: Double
    /// The detection in focus in this frame, when the decision follows a subject that is there.
    public var detectionID: Int?
    /// The kind of the decision in force (`base`, `weakUser`, `strongUser`); `nil` before any.
    public var kind: FocusDecisionKind?
    /// True while focus racks from one decision to the next.
    public var racking: Bool

    /// Creates a frame's focus.
    public init(disparity: Double, detectionID: Int?, kind: FocusDecisionKind?, racking: Bool) {
        self.disparity = disparity
        self.detectionID = detectionID
        self.kind = kind
        self.racking = racking
    }
}
