// MonoDepthNode: kind `mono-depth` — one lens, yet a disparity map the focus and bokeh take
// unchanged: people as layers at the disparities their apparent size gives, the room behind.
import CineGraph
import CineMedia
import CineVision

/// Kind `mono-depth`: disparity from a person matte and the frame's detections (CineVision's MonoDepth).
public struct MonoDepthNode: Node {
    public static let kind = "mono-depth"
    /// Live takes: a depth behind the camera is sent again for the older frames.
    public static let carriesForward = true
    public static let summary = "Disparity from one lens: people (matte + detections) as layers, the room behind."
    public static let details = """
        Places each person (a detection group: face, else body) at the disparity a stereo camera \
        with `baseline` would measure for their apparent size (a face is about 22 cm tall), fills \
        their matte region with it and puts the room at `background-ratio` of the nearest \
        person's disparity; each person's and the room's disparity are smoothed over time. It \
        cannot know the room's own depth (a wall and a shelf are one plane) or the depth of \
        someone the detector does not see (docs/mono.md). Outputs the map and the detections \
        with those disparities, for `focus`, `bokeh` and `asset` as a stereo graph's would be.
        """

    @Input(formats: [.gray8], "Person matte (usually matte.matte)") public var matte: Image
    @Input("Detections (faces and bodies; usually a detector's)") public var detections: Detections
    @Input("The frame, for its size (the reference view)") public var video: Image
    @Output("Disparity in reference pixels, at `width`") public var disparity: DisparityMap
    @Output("The detections with each person's disparity") public var placed: Detections

    @Parameter(default: 0.06, range: 0.001...1, "Stereo baseline the disparities imitate, metres") public var baseline: Double
    @Parameter(default: 0.3, range: 0...1, "The room's disparity as a share of the nearest person's") public var backgroundRatio: Double
    @Parameter(default: 480, range: 32...3840, "Width of the map") public var width: Int
    @Parameter(default: 0.7, range: 0...0.98, "Weight of the previous frame in each disparity (steadiness)") public var smoothing: Double

    private var depth = MonoDepth()

    public init() {}

    public mutating func start(_ ctx: inout NodeContext) throws {
        var c = MonoDepth.Configuration()
        c.baseline = baseline
        c.backgroundRatio = backgroundRatio
        c.width = width
        c.smoothing = smoothing
        depth = MonoDepth(c)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        let size = depth.mapSize(referenceWidth: video.width, referenceHeight: video.height)
        disparity = depth.estimate(matte: matte, detections: detections, referenceWidth: video.width,
                                   referenceHeight: video.height,
                                   into: ctx.pool.makeImage(width: size.width, height: size.height, format: .float32),
                                   frame: video)
        placed = depth.withDisparities(detections)
    }
}
