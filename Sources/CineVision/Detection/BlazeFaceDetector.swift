// BlazeFaceDetector: MediaPipe's face detector run by LiteRT — letterbox, inference, decode and
// weighted suppression — on any frame (I420, NV12, RGBA, gray). One per node: not thread-safe.
import CineInference
import CineMedia

/// Finds faces with a BlazeFace model file (short or full range, told apart by the input size).
public final class BlazeFaceDetector: @unchecked Sendable {
    /// The model file in use.
    public let file: String
    /// Pre- and post-processing of the model's family member.
    public let blazeFace: BlazeFace
    private let model: InferenceModel
    private let regressorsIndex: Int
    private let scoresIndex: Int

    /// Default model file names in `.models/`.
    public static let shortRangeFile = "face_detection_short_range.tflite"
    public static let fullRangeFile = "face_detection_full_range_sparse.tflite"

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing, LiteRT is not installed, or the model is not a BlazeFace (input
    /// 1×N×N×3 with N 128 or 192; outputs anchors×16 and anchors×1).
    public init(file: String = BlazeFaceDetector.shortRangeFile, threads: Int = 1) throws {
        let path = try ModelFiles.resolve(file)
        self.file = path
        model = try InferenceModel(file: path, threads: threads)
        guard model.inputShapes.count == 1, model.inputShapes[0].count == 4, model.inputShapes[0][3] == 3,
              model.inputShapes[0][1] == model.inputShapes[0][2], model.outputShapes.count == 2
        else {
            throw InferenceError(file: path, message: "not a BlazeFace face detector: inputs \(model.inputShapes), outputs \(model.outputShapes)")
        }
        let size = model.inputShapes[0][1]
        let variant: BlazeFace.Variant
        switch size {
        case 128: variant = .shortRange
        case 192: variant = .fullRange
        default: throw InferenceError(file: path, message: "not a BlazeFace face detector: input \(size)×\(size), expected 128 or 192")
        }
        blazeFace = BlazeFace(variant)
        let n = blazeFace.anchors.count
        guard let r = model.outputShapes.firstIndex(where: { $0.last == 16 && $0.reduce(1, *) == 16 * n }),
              let s = model.outputShapes.firstIndex(where: { $0.last == 1 && $0.reduce(1, *) == n })
        else {
            throw InferenceError(file: path, message: "not a BlazeFace face detector: outputs \(model.outputShapes), expected \(n)×16 and \(n)×1")
        }
        regressorsIndex = r
        scoresIndex = s
    }

    /// The faces in `image`, in its normalised coordinates, best first. With `tiles` > 0 the
    /// frame is cut into overlapping squares `tiles` to its short side (so small faces in a
    /// wide shot are large enough for the model) and the tiles' faces are merged; 0 letterboxes
    /// the whole frame into one input.
    /// Cost: per input, one bilinear sample per input pixel + one inference (≈ 1 ms short range).
    public func detect(_ image: Image, tiles: Int = 0) throws -> [BlazeFaceDetection] {
        guard tiles > 0 else { return try detectWhole(image) }
        let side = (min(image.width, image.height) / tiles) & ~1
        func starts(_ length: Int) -> [Int] {
            let n = max(1, Int((Double(length) / Double(side) * 1.25).rounded(.up)))
            return n == 1 ? [0] : (0..<n).map { (($0 * (length - side)) / (n - 1)) & ~1 }
        }
        var all: [BlazeFaceDetection] = []
        for y in starts(image.height) {
            for x in starts(image.width) {
                let tile = image.cropped(x: x, y: y, width: min(side, image.width - x), height: min(side, image.height - y))
                for var f in try detectWhole(tile) {
                    let sx = Double(tile.width) / Double(image.width), sy = Double(tile.height) / Double(image.height)
                    let ox = Double(x) / Double(image.width), oy = Double(y) / Double(image.height)
                    f.bounds = NormalizedRect(x: ox + f.bounds.x * sx, y: oy + f.bounds.y * sy,
                                              width: f.bounds.width * sx, height: f.bounds.height * sy)
                    f.keypoints = f.keypoints.map { NormalizedPoint(x: ox + $0.x * sx, y: oy + $0.y * sy) }
                    all.append(f)
                }
            }
        }
        return BlazeFace.suppress(all, iou: blazeFace.variant.suppressionIoU)
    }

    private func detectWhole(_ image: Image) throws -> [BlazeFaceDetection] {
        let box = blazeFace.prepareInput(image, into: model.input(0))
        try model.run()
        return blazeFace.decode(regressors: model.output(regressorsIndex), scores: model.output(scoresIndex), letterbox: box)
    }
}
