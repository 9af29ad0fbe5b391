// FocusInteraction: the reference UI's focus logic — what a tap or a long press at a point
// asks the focus engine to do, given the detections on screen and their focus modes.
import CineMedia

/// What a gesture asks for (carried out by the caller: the `focus` node, or an embedder).
public enum FocusAction: Sendable, Hashable {
    /// Tracking focus on an existing detection, weak or strong.
    case trackDetection(id: Int, strong: Bool)
    /// Tracking focus at a point: find the object there (a new `salientObject` detection) and
    /// track it, weakly; if there is none, fixed focus at the point's depth, weak.
    case trackPoint(NormalizedPoint)
    /// Fixed focus on the plane at the point's depth, weak or strong.
    case fixedPoint(NormalizedPoint, strong: Bool)
    /// Nothing to change: the tapped detection already has strong focus.
    case keep(id: Int)
}

/// An input the interaction rejects, with what to do.
public enum FocusInteractionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A coordinate outside 0…1 (or not a number).
    case pointOutsideFrame(x: Double, y: Double)

    /// What went wrong and what to do, for a terminal or a viewfinder.
    public var description: String {
        switch self {
        case .pointOutsideFrame(let x, let y):
            return "point \(x),\(y) is outside the frame; give X and Y in 0...1 (normalised, origin top left)"
        }
    }
}

/// The reference UI's tap and long-press semantics (CINEMATIC.md), as a pure function of the
/// gesture, the point and the detections on screen with their focus modes:
///
/// | gesture | where | action |
/// |---|---|---|
/// | tap | a rectangle not in focus (`none`) | weak tracking focus on it |
/// | tap | the weakly focused rectangle | strong tracking focus on it |
/// | tap | the strongly focused rectangle | nothing changes |
/// | tap | no rectangle | tracking focus at the point (a salient object), weak |
/// | long press (≥ 0.3 s) | anywhere | strong fixed focus on the plane at the point |
///
/// Where rectangles overlap (a face inside its body), the smallest one containing the point
/// is the one tapped (ties: the lower ID). A subject's rectangles count as one: tapping the body
/// of a subject whose face is in focus acts on the face (weak → strong).
public struct FocusInteraction: Sendable {
    /// Creates the interaction logic.
    public init() {}

    /// The action for `gesture` at `point` over `detections` (with their current focus modes).
    /// Throws ``FocusInteractionError/pointOutsideFrame(x:y:)`` for a point outside 0…1.
    public func action(for gesture: FocusGesture, at point: NormalizedPoint, on detections: Detections) throws
        -> FocusAction
    {
        guard point.isInsideFrame else { throw FocusInteractionError.pointOutsideFrame(x: point.x, y: point.y) }
        if gesture == .longPress { return .fixedPoint(point, strong: true) }
        guard let tapped = hitTest(point, detections) else { return .trackPoint(point) }
        let hit = detections.first { $0.groupID == tapped.groupID && $0.focusMode != .none } ?? tapped
        switch hit.focusMode {
        case .none: return .trackDetection(id: hit.id, strong: false)
        case .weak: return .trackDetection(id: hit.id, strong: true)
        case .strong: return .keep(id: hit.id)
        }
    }

    /// The detection a touch at `point` lands on: the smallest rectangle containing it.
    public func hitTest(_ point: NormalizedPoint, _ detections: Detections) -> Detection? {
        var best: Detection?
        for d in detections where d.bounds.contains(point) {
            let area = d.bounds.width * d.bounds.height
            if let b = best {
                let bestArea = b.bounds.width * b.bounds.height
                if area > bestArea || (area == bestArea && d.id > b.id) { continue }
            }
            best = d
        }
        return best
    }
}
