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

    /// The detected faces (at or above `minScore`) that the landmark model confirms — presence at
    /// or above `minPresence` — each with its mesh: what `cinegraph detect` reports and what the
    /// detector node tracks. A box the model does not see a face in is dropped.
    public func confirmed(
        _ detected: [BlazeFaceDetection], in image: Image, minScore: Double, minPresence: Double
    ) throws -> [(face: BlazeFaceDetection, mesh: FaceMeshResult)] {
        var out: [(face: BlazeFaceDetection, mesh: FaceMeshResult)] = []
        for f in detected where f.score >= minScore {
            let m = try mesh(of: f, in: image)
            if m.presence >= minPresence { out.append((f, m)) }
        }
        return out
    }
}
