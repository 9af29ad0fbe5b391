// FocusGesture: the two gestures of the reference viewfinder — a tap and a long press — at a
// normalised point of the frame.
import CineMedia

/// A gesture on the viewfinder.
public enum FocusGesture: String, Sendable, Hashable, CaseIterable {
    /// A short touch.
    case tap
    /// A touch held at least ``longPressDuration``.
    case longPress

    /// How long a touch must be held to be a long press, seconds (the reference UI's 0.3 s).
    public static let longPressDuration = 0.3

    /// The gesture a touch held `seconds` long makes.
    public init(heldFor seconds: Double) {
        self = seconds >= Self.longPressDuration ? .longPress : .tap
    }
}

extension NormalizedRect {
    /// Whether `point` lies inside the rectangle (edges included).
    public func contains(_ point: NormalizedPoint) -> Bool {
        point.x >= x && point.x <= x + width && point.y >= y && point.y <= y + height
    }
}
