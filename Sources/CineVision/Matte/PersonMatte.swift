// PersonMatte: MediaPipe's selfie segmentation run by LiteRT — how much of each pixel is a person
// — for one-lens cameras (the person layer of mono depth) and matte-guided edges.
import CineInference
import CineMedia

/// Estimates a person matte with a selfie-segmentation model file (landscape 256×144 or
/// square 256×256; input RGB in 0…1, output one probability per input pixel).
public final class PersonMatte: @unchecked Sendable {
    /// The model file in use.
    public let file: String
    /// The model's input (and matte) size.
    public let width: Int
    public let height: Int
    private let model: InferenceModel

    /// Default model file names in `.models/`.
    public static let landscapeFile = "selfie_segmentation_landscape.tflite"
    public static let squareFile = "selfie_segmentation.tflite"

    /// Loads `file` (a name in `.models/` or a path). Throws ``InferenceError`` naming the file
    /// when it is missing, LiteRT is not installed, or it is not a one-output segmentation model.
    public init(file: String = PersonMatte.landscapeFile, threads: Int = 1) throws {
        let path = try ModelFiles.resolve(file)
        self.file = path
        model = try InferenceModel(file: path, threads: threads)
        guard model.inputShapes.count == 1, model.inputShapes[0].count == 4, model.inputShapes[0][3] == 3,
              model.outputShapes.count == 1,
              model.outputShapes[0].reduce(1, *) == model.inputShapes[0][1] * model.inputShapes[0][2]
        else {
            throw InferenceError(file: path, message: "not a selfie segmentation model: inputs \(model.inputShapes), outputs \(model.outputShapes)")
        }
        height = model.inputShapes[0][1]
        width = model.inputShapes[0][2]
    }

    /// The matte of `image` (any of cinegraph's 8-bit formats), `gray8` at the model's size:
    /// 255 = person, 0 = not. The frame is stretched to the model's input (a 16:9 frame fills
    /// the landscape model exactly). Cost: one bilinear RGB sample per input pixel and one
    /// inference (≈ 3 ms on one core).
    public func estimate(_ image: Image, into out: Image? = nil) throws -> Image {
        let input = model.input(0)
        let sampler = RGBSampler(image)
        let sx = Double(image.width) / Double(width), sy = Double(image.height) / Double(height)
        for oy in 0..<height {
            let fy = (Double(oy) + 0.5) * sy - 0.5
            for ox in 0..<width {
                let (r, g, b) = sampler.rgb((Double(ox) + 0.5) * sx - 0.5, fy)
                let o = (oy * width + ox) * 3
                input[o] = max(0, min(1, r / 255))
                input[o + 1] = max(0, min(1, g / 255))
                input[o + 2] = max(0, min(1, b / 255))
            }
        }
        try model.run()
        let result = model.output(0)
        let matte = out ?? Image(width: width, height: height, format: .gray8)
        precondition(matte.width == width && matte.height == height && matte.format == .gray8)
        for y in 0..<height {
            let row = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<width { row[x] = UInt8(max(0, min(1, result[y * width + x])) * 255 + 0.5) }
        }
        return matte
    }
}
