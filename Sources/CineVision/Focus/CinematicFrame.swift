// CinematicFrame: one frame of the cinematic script — every detection at one time, the
// focus disparity chosen and the detection in focus.
import CineMedia

/// The detections and focus of one frame.
public struct CinematicFrame: Sendable, Hashable, Codable {
    /// When the frame was captured.
    public var time: Timestamp
    /// All detections of the frame, with their focus modes.
    public var detections: Detections
    /// The focal plane of the frame, in full-resolution disparity pixels.
    public var focusDisparity: Double
    /// The detection in focus, if focus tracks one.
    public var focusedDetectionID: Int?

    /// Creates a frame.
    public init(time: Timestamp, detections: Detections, focusDisparity: Double, focusedDetectionID: Int? = nil) {
        self.time = time
        self.detections = detections
        self.focusDisparity = focusDisparity
        self.focusedDetectionID = focusedDetectionID
    }

    private enum CodingKeys: String, CodingKey { case timeNanoseconds, detections, focusDisparity, focusedDetectionID }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = Timestamp(nanoseconds: try c.decode(Int64.self, forKey: .timeNanoseconds))
        detections = try c.decode(Detections.self, forKey: .detections)
        focusDisparity = try c.decode(Double.self, forKey: .focusDisparity)
        focusedDetectionID = try c.decodeIfPresent(Int.self, forKey: .focusedDetectionID)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time.nanoseconds, forKey: .timeNanoseconds)
        try c.encode(detections, forKey: .detections)
        try c.encode(focusDisparity, forKey: .focusDisparity)
        try c.encodeIfPresent(focusedDetectionID, forKey: .focusedDetectionID)
    }
}
