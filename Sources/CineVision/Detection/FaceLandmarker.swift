// FaceLandmarker: MediaPipe's face landmark model run by LiteRT on the crop around each detected
// face — 468 points, whether a face is really there, and the head's pose. One per user: not
// thread-safe.
import CineInference
import CineMedia

/// Runs `face_landmark.tflite` (or a model of its family: input 1×192×192×3, outputs 1404 points
/// and one presence logit) on faces found by ``BlazeFaceDetector``.
public final class FaceLandmarker: @unchecked Sendable {
    /// The model file in use.
    public let file: String
    private let model: InferenceModel
    private let pointsIndex: Int
    private let presenceIndex: Int

    /// Default model file name in `.models/`.
    public static let defaultFile = "face_landmark.tflite"

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing, LiteRT is not installed, or the model is not a face landmark model.
    public init(file: String = FaceLandmarker.defaultFile, threads: Int = 1) throws {
        let path = try ModelFiles.resolve(file)
        self.file = path
        model = try InferenceModel(file: path, threads: threads)
        let n = FaceMesh.inputSize
        guard model.inputShapes == [[1, n, n, 3]],
              let p = model.outputShapes.firstIndex(where: { $0.reduce(1, *) == 3 * FaceMesh.pointCount }),
              let s = model.outputShapes.firstIndex(where: { $0.reduce(1, *) == 1 })
        else {
            throw InferenceError(file: path, message: "not a face landmark model: inputs \(model.inputShapes), outputs \(model.outputShapes), expected 1×192×192×3 in, 1404 points and 1 presence out")
        }
        pointsIndex = p
        presenceIndex = s
    }

    /// The mesh of `face` (found in `image`), in the frame's pixels.
    /// Cost: 37 k bilinear samples + one inference (≈ 5 ms on one thread).
    public func mesh(of face: BlazeFaceDetection, in image: Image) throws -> FaceMeshResult {
        try mesh(crop: FaceMesh.Crop(face: face, width: image.width, height: image.height), in: image)
    }

    /// The mesh of the face in `box` (normalised; a tracked face's box between detections),
    /// upright, in the frame's pixels. Same cost as ``mesh(of:in:)``.
    public func mesh(in box: NormalizedRect, of image: Image) throws -> FaceMeshResult {
        try mesh(crop: FaceMesh.Crop(box: box, width: image.width, height: image.height), in: image)
    }

    /// The mesh of the face the model sees in `crop` of `image`.
    private func mesh(crop: FaceMesh.Crop, in image: Image) throws -> FaceMeshResult {
        FaceMesh.prepareInput(image, crop: crop, into: model.input(0))
        try model.run()
        return FaceMesh.decode(landmarks: model.output(pointsIndex), presence: model.output(presenceIndex)[0], crop: crop)
    }

    /// The detected faces (at or above `minScore`) that the landmark model confirms, each with its
    /// mesh: what `cinegraph detect` reports and what the detector node tracks. A face is
    /// confirmed when the landmark model sees one (presence at or above `minPresence`) or, given
    /// `sure`, when the detector is sure of it (score at or above `sure.score`) and the landmark
    /// model does not rule it out (presence at or above `sure.presence`). On a still photo a
    /// face of 20–25 px, enlarged 8× for the landmark model, can fall to a presence of 0.08–0.6
    /// while the detector scores it 0.77–0.85; the face-like things the detector finds there (a
    /// logo, a texture) score 0.5–0.72, and those above 0.6 have a presence of at most 0.013
    /// (docs/detection.md, *Faces on real photos*). A box confirmed neither way is dropped.
    public func confirmed(
        _ detected: [BlazeFaceDetection], in image: Image, minScore: Double, minPresence: Double,
        sure: (score: Double, presence: Double)? = nil
    ) throws -> [(face: BlazeFaceDetection, mesh: FaceMeshResult)] {
        var out: [(face: BlazeFaceDetection, mesh: FaceMeshResult)] = []
        for f in detected where f.score >= minScore {
            let m = try mesh(of: f, in: image)
            let sureOfIt = sure.map { f.score >= $0.score && m.presence >= $0.presence } ?? false
            if m.presence >= minPresence || sureOfIt { out.append((f, m)) }
        }
        return out
    }
}
