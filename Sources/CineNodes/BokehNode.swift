// BokehNode: kind `bokeh` — burns synthetic shallow depth of field into each frame from its
// disparity map and the focus in force (a thin adapter over CineVision's BokehRenderer).
import CineGraph
import CineMedia
import CineVision

/// Kind `bokeh`: renders cinematic depth of field into I420 frames.
public struct BokehNode: Node {
    public static let kind = "bokeh"
    /// Turned down by the load controller when it feeds only previews (docs/config.md#priorities).
    public static var adaptations: [NodeAdaptation] { [NodeAdaptation("quality", steps: ["standard", "draft"]), NodeAdaptation("threads", steps: ["2", "1"])] }
    public static let summary = "Synthetic shallow depth of field: blurs each frame by its disparity, occlusion-aware, in linear light."
    public static let details = """
        Each pixel's circle of confusion is `c = K · (d − d_f) / N` pixels: linear in the \
        difference between its disparity `d` and the focus disparity `d_f`, inversely \
        proportional to the f-number `N` (`aperture`), with `K = 0.7` (a simulated lens whose \
        focal length is 1.4 × the stereo baseline; see docs/bokeh.md). Positive `c` is in front \
        of the focal plane. Radii are clamped to `max-blur` × the frame height.

        Blur layers are convolved with exact disks in linear light (highlights boosted so bokeh \
        disks stay bright) and composited back to front: a sharp subject never bleeds into the \
        blurred background, and a blurred foreground spreads over what is behind it. Large radii \
        are drawn at half or quarter resolution; in-focus pixels are the camera's own. A static \
        scene renders identically frame after frame.

        Focus: the `focus` input's focus disparity (and its f-number, when it carries one) when \
        connected; otherwise `focus-disparity` (0 = the disparity at the centre of the frame). \
        The disparity map may have any resolution with the frame's aspect ratio; `+inf` marks \
        invalid samples (rendered as background). A map of another aspect ratio, NaNs in it, or \
        a focus f-number outside 1.4...16 fail the frame with an error naming node and frame.

        Matte: connect a `matte` node's person matte and the subject's outline is drawn by it, \
        not by the disparity map's grid: near the matte's edge each pixel takes the person's or \
        the background's disparity by how much of it is person (the matte brought to the frame \
        along the frame's own edges), so hair and shoulders stay sharp and keep the wall's \
        blur off them, even from a 480×270 map (docs/bokeh.md#the-subjects-outline).
        """

    @Input(formats: [.i420, .rgba8], "Frames to render (I420 video; RGBA stills keep full colour)") public var image: Image
    @Input("Disparity of each frame (float32, any resolution of the frame's aspect ratio)") public var disparity: DisparityMap
    @OptionalInput("Focus in force (focus disparity, optional f-number); overrides focus-disparity") public var focus: FocusState?
    @OptionalInput(formats: [.gray8], "Person matte (any size of the frame's aspect; 255 = person): draws the subject's outline") public var matte: Image?
    @Output(formatOf: "image", "Frames with the depth of field burned in") public var video: Image
    @Output("The focus each frame was rendered with") public var state: FocusState

    @Parameter(default: LensModel.defaultFNumber, range: LensModel.minimumFNumber...LensModel.maximumFNumber,
               "Simulated aperture as an f-number (smaller = shallower depth of field)")
    public var aperture: Double
    @Parameter(default: 0, range: 0...10_000,
               "Focus disparity in pixels when no focus input is connected (0 = disparity at the frame centre)")
    public var focusDisparity: Double
    @Parameter(default: 0.03, range: 0...0.1, "Largest blur radius as a fraction of the frame height (0.03 = 32 px at 1080p)")
    public var maxBlur: Double
    @Parameter(default: Quality.standard, "Speed / fidelity: draft, standard (live 1080p), high (stills)")
    public var quality: Quality
    @Parameter(default: 3, range: 0...10, "Extra gain for near-white pixels so blurred highlights stay bright")
    public var highlightBoost: Double
    @Parameter(default: 2, range: 1...64, "Cores the renderer may use") public var threads: Int

    /// The presets of ``CineVision/BokehQuality``, as a parameter.
    public enum Quality: String, ParameterEnum {
        /// Quarter resolution sooner: previews.
        case draft
        /// Live 1080p.
        case standard
        /// Stills and offline renders.
        case high
    }

    private var renderer: BokehRenderer?
    private var refiner = MatteEdgeRefiner()

    public init() {}

    public mutating func process(_ ctx: inout NodeContext) throws {
        var settings = BokehRenderer.Settings()
        settings.maxBlur = maxBlur
        settings.quality = BokehQuality(rawValue: quality.rawValue) ?? .standard
        settings.highlightBoost = highlightBoost
        settings.threads = threads
        if renderer == nil { renderer = BokehRenderer(settings: settings) }
        renderer!.settings = settings
        var map = disparity
        if let matte {
            guard matte.width >= 2, matte.height >= 2 else {
                throw ParameterError(nil, "bokeh takes a matte of at least 2x2 pixels, got \(matte.width)x\(matte.height)")
            }
            refiner.settings.threads = threads
            map = refiner.refine(map, matte: matte, guide: image)
        }
        let focusDisparity: Double
        let fNumber: Double
        if let focus {
            focusDisparity = focus.focusDisparity
            fNumber = focus.fNumber ?? aperture
        } else if self.focusDisparity > 0 {
            focusDisparity = self.focusDisparity
            fNumber = aperture
        } else {
            focusDisparity = map.robustDisparity(at: NormalizedPoint(x: 0.5, y: 0.5)) ?? 0
            fNumber = aperture
        }
        // A refused frame throws the renderer's BokehError; the runtime names node, frame and time.
        video = try renderer!.render(image, disparity: map, focusDisparity: focusDisparity, fNumber: fNumber,
                                     pool: ctx.pool)
        var used = focus ?? FocusState(focusDisparity: focusDisparity)
        used.focusDisparity = focusDisparity
        used.fNumber = fNumber
        state = used
    }
}
