// PalmDetector: MediaPipe Hands' palm detector (`palm_detection_lite.tflite`) run by LiteRT — a
// hand found by its palm, with the wrist and knuckle points. One per user: not thread-safe.
import CineMedia

/// A hand found by the palm detector, in the frame's normalised coordinates.
public struct PalmDetection: Sendable, Hashable {
    /// The palm's box: square in the frame's pixels, about the palm without the fingers.
    public var bounds: NormalizedRect
    /// Confidence, 0…1.
    public var score: Double
    /// The wrist, the knuckles of the index, middle, ring and little fingers, and two points of
    /// the thumb (MediaPipe's order).
    public var keypoints: [NormalizedPoint]

    /// Creates a palm record.
    public init(bounds: NormalizedRect, score: Double, keypoints: [NormalizedPoint]) {
        self.bounds = bounds
        self.score = score
        self.keypoints = keypoints
    }

    /// The palm box's side in the frame's pixels (its width; the box is square in pixels).
    public func side(frameWidth: Int) -> Double { bounds.width * Double(frameWidth) }
}

/// Finds hands with MediaPipe's palm detector model file (input 1×192×192×3 in 0…1; outputs
/// 2016×18 and 2016×1), on the whole frame letterboxed: hands from about a tenth of the frame's
/// longer side.
public final class PalmDetector: @unchecked Sendable {
    /// The model file in use.
    public var file: String { model.file }
    private let model: BlazeModel

    /// Default model file name in `.models/`.
    public static let defaultFile = "palm_detection_lite.tflite"

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing, LiteRT is not installed, or the model is not a palm detector.
    public init(file: String = PalmDetector.defaultFile, threads: Int = 1) throws {
        model = try BlazeModel(file: file, variant: .palm, what: "a palm detector", threads: threads)
    }

    /// The hands in `image` (I420, NV12, RGBA or gray8), best first.
    /// Cost: up to 16 bilinear samples per input pixel (37 k) + one inference.
    public func detect(_ image: Image) throws -> [PalmDetection] {
        try model.detect(image).map { PalmDetection(bounds: $0.bounds, score: $0.score, keypoints: $0.keypoints) }
    }

    /// The hands in the whole of `image` and within `regions` of it (normalised; each cropped
    /// to a square about its centre with the larger side, clipped to the frame), in the
    /// frame's normalised coordinates, best first; a hand found twice is kept once. A hand near
    /// a face is a few pixels in the model's input when a whole 720p frame is letterboxed into
    /// it, and three times larger in a crop five faces wide; but the model's score depends on
    /// what the crop shows around the hand (on the synthetic presenter 0.5–0.9 as the crop
    /// moves), so the whole frame is looked at too. Cost: one detection per region, and one.
    public func detect(_ image: Image, in regions: [NormalizedRect]) throws -> [PalmDetection] {
        var all = try model.detect(image)
        let w = Double(image.width), h = Double(image.height)
        for r in regions {
            let side = min(min(w, h), max(r.width * w, r.height * h, 32))
            let cx = (r.x + r.width / 2) * w, cy = (r.y + r.height / 2) * h
            // Even corners and sides: the chroma planes of I420 and NV12 are halved.
            let x0 = Int(max(0, min(w - side, cx - side / 2))) & ~1, y0 = Int(max(0, min(h - side, cy - side / 2))) & ~1
            let s = Int(side) & ~1
            let crop = image.cropped(x: x0, y: y0, width: s, height: s)
            let square = NormalizedRect(x: Double(x0) / w, y: Double(y0) / h, width: Double(s) / w, height: Double(s) / h)
            for var f in try model.detect(crop) {
                let b = f.bounds
                f.bounds = NormalizedRect(x: square.x + b.x * square.width, y: square.y + b.y * square.height,
                                          width: b.width * square.width, height: b.height * square.height)
                f.keypoints = f.keypoints.map { NormalizedPoint(x: square.x + $0.x * square.width, y: square.y + $0.y * square.height) }
                all.append(f)
            }
        }
        return BlazeFace.suppress(all, iou: 0.3).map { PalmDetection(bounds: $0.bounds, score: $0.score, keypoints: $0.keypoints) }
    }
}
