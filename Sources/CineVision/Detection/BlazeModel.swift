// BlazeModel: one model of the BlazeFace family (the pose or the palm detector) loaded into LiteRT,
// its shapes checked, and run on a whole frame letterboxed into its input. One per user: not
// thread-safe.
import CineInference
import CineMedia

/// A BlazeFace-family detector model file run by LiteRT on whole frames.
final class BlazeModel: @unchecked Sendable {
    /// The model file in use.
    let file: String
    let family: BlazeFace
    private let model: InferenceModel
    private let regressorsIndex: Int
    private let scoresIndex: Int

    /// Loads `file` (a name in `.models/` or a path) as a `variant` model; `what` names it in the
    /// error ("a pose detector"). Throws ``InferenceError`` naming the file when it is missing,
    /// LiteRT is not installed, or its shapes are not the variant's.
    init(file: String, variant: BlazeFace.Variant, what: String, threads: Int) throws {
        let path = try ModelFiles.resolve(file)
        self.file = path
        family = BlazeFace(variant)
        model = try InferenceModel(file: path, threads: threads)
        let n = family.anchors.count, size = variant.inputSize, values = variant.valuesPerAnchor
        guard model.inputShapes == [[1, size, size, 3]],
              let r = model.outputShapes.firstIndex(where: { $0.reduce(1, *) == values * n }),
              let s = model.outputShapes.firstIndex(where: { $0.reduce(1, *) == n })
        else {
            throw InferenceError(file: path, message: "not \(what): inputs \(model.inputShapes), outputs \(model.outputShapes), expected 1×\(size)×\(size)×3 in, \(n)×\(values) and \(n)×1 out")
        }
        regressorsIndex = r
        scoresIndex = s
    }

    /// The detections in `image` (I420, NV12, RGBA or gray8), best first.
    /// Cost: one bilinear sample per input pixel + one inference.
    func detect(_ image: Image) throws -> [BlazeFaceDetection] {
        let box = family.prepareInput(image, into: model.input(0))
        try model.run()
        return family.decode(regressors: model.output(regressorsIndex), scores: model.output(scoresIndex), letterbox: box)
    }
}
