// FocusState: what the focus engine decided for one frame — where the focal plane is and how
// wide the simulated aperture is — as the bokeh renderer and still sink consume it.

/// The focus of one frame: the focal plane as a disparity, the simulated aperture, and the
/// decision behind them.
public struct FocusState: Sendable, Hashable, Codable {
    /// Disparity of the focal plane, in pixels of the full-resolution reference view.
    public var focusDisparity: Double
    /// Simulated aperture as an f-number (smaller = shallower depth of field); `nil` leaves
    /// the renderer's own aperture parameter in charge.
    public var fNumber: Double?
    /// The detection in focus (its stable ``Detection/id``), when focus tracks an object.
    public var targetDetectionID: Int?
    /// Progress of the focus transition in force: 0 at its start, 1 once focus has landed.
    public var transitionProgress: Double

    /// Creates a focus state.
    public init(focusDisparity: Double, fNumber: Double? = nil, targetDetectionID: Int? = nil,
                transitionProgress: Double = 1) {
        self.focusDisparity = focusDisparity
        self.fNumber = fNumber
        self.targetDetectionID = targetDetectionID
        self.transitionProgress = transitionProgress
    }
}
