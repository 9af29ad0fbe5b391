// PoseDetector: BlazePose's person detector (MediaPipe's `pose_detection.tflite`) run by LiteRT —
// a person found by their head, with points on the hips, the body's reach and the shoulders —
// and the body box those points give. One per user: not thread-safe.
import CineInference
import CineMedia

/// A person found by the pose detector, in the frame's normalised coordinates.
public struct PersonDetection: Sendable, Hashable {
    /// The box the model draws at the person's head (it finds people by their heads; its size
    /// says little: 0.2 of the model's input, whatever the person's size).
    public var head: NormalizedRect
    /// The body, from the points alone: as wide as the upper body's radius and centred on the
    /// shoulders, from 0.6 of that radius above the shoulders (the top of the head) to a whole
    /// body's radius below the hips' centre; clipped to the frame. Measured against the
    /// synthetic camera's people and a portrait, the width is within about 25 %.
    public var body: NormalizedRect
    /// Confidence, 0…1.
    public var score: Double
    /// The hips' centre, a point a whole body's radius from it, the shoulders' centre, a point
    /// an upper body's radius from that (MediaPipe's order).
    public var keypoints: [NormalizedPoint]
}

/// Finds people with a BlazePose detector model file (input 1×224×224×3; outputs 2254×12 and
/// 2254×1).
public final class PoseDetector: @unchecked Sendable {
    /// The model file in use.
    public var file: String { model.file }
    private let model: BlazeModel

    /// Default model file name in `.models/`.
    public static let defaultFile = "pose_detection.tflite"

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing, LiteRT is not installed, or the model is not a pose detector.
    public init(file: String = PoseDetector.defaultFile, threads: Int = 1) throws {
        model = try BlazeModel(file: file, variant: .pose, what: "a pose detector", threads: threads)
    }

    /// The people in `image` (I420, NV12, RGBA or gray8), best first.
    /// Cost: one bilinear sample per input pixel (50 k) + one inference (≈ 4 ms on one thread).
    public func detect(_ image: Image) throws -> [PersonDetection] {
        try model.detect(image).map { Self.person($0, width: image.width, height: image.height) }
    }

    /// The body box a detection's points imply (see ``PersonDetection/body``), computed in
    /// pixels so that a wide frame does not squash it.
    static func person(_ d: BlazeFaceDetection, width: Int, height: Int) -> PersonDetection {
        let w = Double(width), h = Double(height), head = d.bounds
        guard d.keypoints.count == 4 else { return PersonDetection(head: head, body: head, score: d.score, keypoints: d.keypoints) }
        let hips = d.keypoints[0], reach = d.keypoints[1], shoulders = d.keypoints[2], upperReach = d.keypoints[3]
        func distance(_ a: NormalizedPoint, _ b: NormalizedPoint) -> Double {
            let dx = (a.x - b.x) * w, dy = (a.y - b.y) * h
            return (dx * dx + dy * dy).squareRoot()
        }
        let radius = distance(hips, reach), upperRadius = distance(shoulders, upperReach)
        let cx = shoulders.x * w, halfWidth = upperRadius / 2
        let top = shoulders.y * h - 0.6 * upperRadius, bottom = hips.y * h + radius
        let x0 = max(0, cx - halfWidth), x1 = min(w, cx + halfWidth)
        let y0 = max(0, min(top, hips.y * h)), y1 = min(h, max(bottom, top + 1))
        let body = NormalizedRect(x: x0 / w, y: y0 / h, width: max(0, x1 - x0) / w, height: max(0, y1 - y0) / h)
        return PersonDetection(head: head, body: body, score: d.score, keypoints: d.keypoints)
    }
}
