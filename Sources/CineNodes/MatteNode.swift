// MatteNode: kind `matte` — how much of each pixel is a person, from MediaPipe's selfie
// segmentation run by LiteRT (CineVision's PersonMatte); the person layer of one-lens depth.
import CineGraph
import CineInference
import CineMedia
import CineVision

/// Kind `matte`: a person matte of each frame.
public struct MatteNode: Node {
    public static let kind = "matte"
    /// Live takes: a matte behind the camera is sent again for the older frames.
    public static let carriesForward = true
    public static let summary = "A person matte of each frame (selfie segmentation on LiteRT): 255 = person."
    public static let details = """
        Runs a selfie-segmentation model (`selfie_segmentation_landscape.tflite`, 256×144, \
        fetched by `scripts/setup.sh`; or the square `selfie_segmentation.tflite`, or your own \
        `.tflite` of the family) on each frame and outputs a gray8 matte at the model's size: \
        255 = person, 0 = not, soft in between. `smoothing` blends each matte with the previous \
        one by agreement: where they agree (a still person, the model's noise) the edge is \
        steadied, where they differ by `tolerance` levels or more (a person moving) the new \
        matte is taken at once, so a moving edge does not lag. About 3 ms a frame on one core. \
        `full` is the same matte at the frame's size, brought up along the frame's own edges \
        (a guided filter: the outline follows hair and shoulders, not the model's grid); it is \
        made only when connected (about 4 ms more at 720p). \
        `mono-depth` turns it into disparity for one-lens cameras (docs/mono.md).
        """

    @Input(formats: [.i420, .nv12, .rgba8, .gray8], "Frames") public var image: Image
    @Output(formats: [.gray8], "Person matte at the model's size (255 = person)") public var matte: Image
    @Output(formats: [.gray8], "The matte at the frame's size, upsampled along the frame's edges (made only when connected)")
    public var full: Image
    @Parameter(default: "selfie_segmentation_landscape.tflite", "Segmentation model file (a name in .models/ or a path)")
    public var model: String
    @Parameter(default: 0.8, range: 0...0.95, "Weight of the previous matte where the two agree (steadies the edge; 0 = none)")
    public var smoothing: Double
    @Parameter(default: 64, range: 1...255, "A change of this many levels or more is taken unblended (a moving edge)")
    public var tolerance: Double
    @Parameter(default: 1, range: 1...8, "Cores the model may use") public var threads: Int

    private var person: PersonMatte?
    private var smoother = MatteSmoother(strength: 0)
    private var upsampling = MatteUpsampler.Model()

    public init() {}

    public func preflight() throws {
        do { _ = try PersonMatte(file: model, threads: threads) } catch let e as InferenceError {
            throw ParameterError("model", e.description)
        }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        do { person = try PersonMatte(file: model, threads: threads) } catch let e as InferenceError {
            throw ParameterError("model", e.description)
        }
        smoother = MatteSmoother(strength: smoothing, tolerance: tolerance)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        guard let person else { return }
        let out = ctx.pool.makeImage(width: person.width, height: person.height, format: .gray8)
        let now = try person.estimate(image, into: out)
        smoother.smooth(now)
        matte = now
        if ctx.isConnected($full) {
            full = MatteUpsampler().upsample(now, guide: image, model: &upsampling, pool: ctx.pool)
        }
    }
}
