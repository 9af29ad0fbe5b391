// DepthRefineNode: kind `depth-refine` — the stereo matcher's disparity shaped by the person
// matte (CineVision's PersonDepthRefiner): each person one surface, the outline the matte's, the
// background fattened into a person given back, still samples steady over time.
import CineGraph
import CineMedia
import CineVision

/// Kind `depth-refine`: a stereo disparity map refined with the person matte.
public struct DepthRefineNode: Node {
    public static let kind = "depth-refine"
    /// Live takes: a refinement behind the camera is sent again for the older frames.
    public static let carriesForward = true
    public static let summary = "Stereo disparity shaped by the person matte: each person one smooth surface, the outline the matte's, still regions steady."
    public static let details = """
        Stereo matching fails inside people in striped or flat clothes and fattens them at their \
        outlines. Inside each region the matte calls person, the map becomes a plane fitted \
        robustly (Huber, then Tukey's biweight) to the confident matches there; a region holding \
        two people at different depths gets two planes, each sample taking the one its \
        neighbours' matches vote for; given the stereo pair, where two people meet the nearer one \
        is walked back to where the views and the picture's edge put the line. A person's plane \
        within 1 px of last frame's keeps 70 % of it, so a still person does not jitter. Given \
        the stereo pair, a torso sample that disagrees with its head (a head in front of another's \
        included) is tested against the views: where the right view matches it at the head's \
        disparity about as well as at its own (a knit, a stripe matched one period off; a flat \
        colour), it takes the head's. Background samples beside a person that carry its depth \
        take the background's disparity from beyond them. Given the views, a background sample \
        where the picture stands still keeps 90 % of its last value, whatever the matcher says; \
        otherwise a sample that moved by less than `still` px since the last frame is blended \
        towards its last value by `temporal`, so a still background does not breathe. Given the \
        views, the left view's first columns that match nothing the right view shows, and that \
        nothing right of them hides (a head cut by the frame's left edge, narrower than its own \
        disparity), take the disparity of their width. Runs at \
        the map's resolution (about 3–4 ms a frame at 320×180 on a slow two-core laptop, the views' tests on both cores). The \
        stereo graphs put it between `disparity` and everything that reads depth — focus, bokeh, \
        the stabilizer and the asset — so the recording holds the refined map (docs/disparity.md).
        """

    @Input("Disparity from the stereo matcher (with its confidence)") public var disparity: DisparityMap
    @Input(formats: [.gray8], "Person matte (from a `matte` node; 255 = person)") public var matte: Image
    @OptionalInput("The rectified stereo pair the map was matched on: settles wrong matches on repeating or flat clothes")
    public var stereo: StereoFrame?
    @Output(name: "disparity", "The refined disparity") public var refined: DisparityMap
    @Parameter(default: 0.7, range: 0...0.95, "Weight of the last value for a still sample (0 = no filtering over time)")
    public var temporal: Double
    @Parameter(default: 0.75, range: 0...10, "A sample that moved less than this (px of disparity) is still")
    public var still: Double
    @Parameter(default: 1.0, range: 0.1...10, "Huber threshold of the surface fit, px of disparity") public var huber: Double
    @Parameter(default: false, "Also redraw the depth steps away from people (a cabinet, a pillar) by the stereo pair: sharper outlines there, about 0.7–0.9 ms more a frame at 320×180 (less on a still camera)")
    public var steps: Bool

    private var refiner = PersonDepthRefiner()

    public init() {}

    public mutating func start(_ ctx: inout NodeContext) throws {
        var s = PersonDepthRefiner.Settings()
        s.temporal = Float(temporal)
        s.stillThreshold = Float(still)
        s.huber = Float(huber)
        s.stepsByTheViews = steps
        refiner = PersonDepthRefiner(settings: s)
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        refined = refiner.refine(disparity, matte: matte, image: stereo?.left, right: stereo?.right)
    }
}
