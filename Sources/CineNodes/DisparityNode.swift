// DisparityNode: the `disparity` node kind — a thin adapter from a stereo frame to
// CineVision's StereoMatcher (census + semi-global matching).
import CineGraph
import CineMedia
import CineVision

/// Kind `disparity`: the left view's disparity map (and its confidence) from a rectified pair.
public struct DisparityNode: Node {
    public static let kind = "disparity"
    /// Live takes: a matcher behind the camera sends its last map for the older frames.
    public static let carriesForward = true
    public static let summary =
        "Disparity of the left view from a rectified stereo pair (census + semi-global matching)."
    public static let details = """
        Both views' luma is box-filtered to `scale` × the input size, census-transformed (9×7) \
        and matched by semi-global matching with SIMD across disparities, row by row (the cost \
        volume never exceeds one row). Then: winner-take-all with a `uniqueness` margin, \
        equiangular sub-pixel fit, left-right check, speckle removal, hole filling with the background, \
        optional temporal smoothing, and optional upsampling (bilinear, or edge-aware guided by \
        the left view).

        Values are in pixels of the full-resolution left view (a left pixel at x matches the \
        right view at x − d; larger = nearer), invalid samples +inf (only with `fill-holes: \
        false`). The confidence plane (gray8) is 0 for invalid or filled pixels, else the margin \
        of the best cost over the runner-up.

        Live defaults: a 1920×1080 pair is matched at 480×270 over 64 processing disparities \
        (`max-disparity: 256` full-resolution pixels), 5 paths, one thread — 16–22 ms per \
        frame on one core of a 2-core Haswell-class CPU (45–61 fps), leaving the other core to \
        the encoder. `upsample: edge-aware` adds a full-resolution pass (≈ 14 ms on one core).
        """

    @Input("A rectified stereo pair (gray8, I420 or NV12)") public var stereo: StereoFrame
    @Output("Disparity of the left view, in full-resolution pixels, with confidence") public var disparity: DisparityMap
    @Output(formats: [.gray8], "The confidence plane alone (0 = invalid or filled)") public var confidence: Image

    @Parameter(default: 0.25, range: 0.05...1, "Processing scale (0.25: 1920x1080 is matched at 480x270)")
    public var scale: Double
    @Parameter(default: 256, range: 1...4096, "Largest disparity searched, in full-resolution pixels")
    public var maxDisparity: Int
    @Parameter(default: 5, range: 3...5, "Aggregation paths: 3 (horizontal + vertical) or 5 (+ diagonals)")
    public var paths: Int
    @Parameter(default: 10, range: 0...191, "Penalty for a one-pixel disparity step (census cost units)")
    public var p1: Int
    @Parameter(default: 120, range: 1...192, "Penalty for a larger disparity jump (lowered across image edges, at most 192)")
    public var p2: Int
    @Parameter(default: true, "Sub-pixel refinement (equiangular fit)") public var subpixel: Bool
    @Parameter(default: true, "Left-right consistency check") public var lrCheck: Bool
    @Parameter(default: 5, range: 0...100, "Uniqueness margin in percent (0 = off)") public var uniqueness: Int
    @Parameter(default: 40, range: 0...1_000_000, "Remove regions smaller than this many processing pixels (0 = off)")
    public var speckleSize: Int
    @Parameter(default: true, "Fill invalid pixels with the background disparity") public var fillHoles: Bool
    @Parameter(default: .none, "Output resolution: none (processing), bilinear or edge-aware (full resolution)")
    public var upsample: DisparityUpsampleMode
    @Parameter(
        default: 0, range: 0...0.95, "Temporal smoothing: weight of the previous frame where nothing moved (0 = off)")
    public var temporal: Double
    @Parameter(default: 1, range: 1...64, "Threads for the kernels (1 leaves a core for the encoder)")
    public var threads: Int

    private var matcher: StereoMatcher?

    public init() {}

    /// The matcher settings from the parameters.
    public var configuration: StereoMatcher.Configuration {
        StereoMatcher.Configuration(
            scale: scale, maxDisparity: maxDisparity, paths: paths == 3 ? .three : .five, p1: p1, p2: p2,
            subpixel: subpixel, leftRightCheck: lrCheck, uniqueness: uniqueness, speckleSize: speckleSize,
            fillHoles: fillHoles, upsampling: upsample.upsampling, temporalSmoothing: temporal, threads: threads)
    }

    public func validate() throws {
        if paths != 3 && paths != 5 { throw ParameterError("paths", "must be 3 or 5, got \(paths)") }
        do {
            try configuration.validate()
        } catch {
            if case let .invalidSetting(field, message) = error { throw ParameterError(field, message) }
            throw ParameterError(nil, error.description)
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        let wanted = configuration
        if matcher?.configuration != wanted { matcher = try StereoMatcher(wanted) }
        let map = try matcher!.match(stereo, pool: ctx.pool)
        disparity = map
        if let c = map.confidence { confidence = c }
    }
}

/// How the `disparity` node sizes its output map.
public enum DisparityUpsampleMode: String, ParameterEnum {
    /// Keep the processing resolution.
    case none
    /// Bilinear to the full resolution.
    case bilinear
    /// Joint bilateral (guided by the left view) to the full resolution.
    case edgeAware = "edge-aware"

    var upsampling: StereoMatcher.Upsampling {
        switch self {
        case .none: return .none
        case .bilinear: return .bilinear
        case .edgeAware: return .edgeAware
        }
    }
}
