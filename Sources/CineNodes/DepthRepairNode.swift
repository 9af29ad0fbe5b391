// DepthRepairNode: kind `depth-repair` — after the take, the disparity maps a weak machine carried
// forward live are made again from the computed maps before and after them, moved with the
// recorded picture (DisparityInterpolator). `cinegraph render --repair` puts it between the asset
// and the bokeh renderer.
import CineGraph
import CineMedia
import CineVision

/// Kind `depth-repair`: fills carried disparity maps from the computed ones on either side.
public struct DepthRepairNode: Node {
    public static let kind = "depth-repair"
    public static let summary = "Re-makes the disparity maps a take carried forward live, from the computed maps on either side."
    public static let details = """
        A live take on a machine that cannot keep up computes the disparity on one frame in \
        several and sends the last map again for the others (`carried` in the asset's records). \
        This node, reading a recorded take (an `asset-source`), recognises a carried map (the \
        very samples of the map before it), holds those frames until the next computed map \
        arrives, and fills each from the maps before and after it, moved with the picture: block \
        motion on the recorded video at the map's resolution, then per map cell whichever map's \
        moved picture matches this frame's best (docs/asset.md#repairing-a-take). Frames after the \
        last computed map keep the map recorded. With `recomputed` — the depth matched again on the \
        take's kept stereo pair — a carried map is replaced by that frame's recomputed one at once, \
        nothing is held or moved. The video and the detections pass through with their frames. \
        `cinegraph render --repair` builds it (`RepairGraph`).
        """

    @Input(formats: [.i420, .gray8], "The recorded frames") public var video: Image
    @Input("The recorded disparity of each frame") public var disparity: DisparityMap
    @Input("The recorded detections of each frame") public var detections: Detections
    @OptionalInput("The disparity matched again after the take (on the asset's kept pair): replaces carried maps")
    public var recomputed: DisparityMap?
    @OptionalInput("Each frame's record (asset-source's record): a map its asset says was carried counts as carried even when stabilization moved it")
    public var record: AssetFrameRecord?
    @Output(name: "video", formatOf: "video", "The frames, unchanged") public var videoOut: Image
    @Output(name: "disparity", "The disparity: computed maps unchanged, carried ones re-made") public var repaired: DisparityMap
    @Output(name: "detections", "The detections, unchanged") public var detectionsOut: Detections

    /// A held frame of a carried run.
    private struct Held {
        var time: Timestamp
        var video: Image
        var detections: Detections
        var luma: LumaGrid
    }

    private var key: DisparityInterpolator.Key?
    private var held: [Held] = []
    private var filled = 0

    public init() {}

    public mutating func process(_ ctx: inout NodeContext) throws {
        let map = disparity
        let recordSaysCarried = record?.carriedInputs?.contains("disparity") ?? false
        let carried = key.map { recordSaysCarried || Self.sameSamples($0.map, map) } ?? false
        if carried, let recomputed {
            // Matched again: sent at once; no picture to move maps with is needed.
            filled += 1
            videoOut = video
            repaired = recomputed
            detectionsOut = detections
            ctx.emit(at: ctx.timestamp)
            return
        }
        let luma = LumaGrid(video, width: map.values.width, height: map.values.height)
        if carried {
            held.append(Held(time: ctx.timestamp, video: video, detections: detections, luma: luma))
            return
        }
        let next = DisparityInterpolator.Key(luma: luma, map: map)
        if let k = key, !held.isEmpty {
            let maps = DisparityInterpolator().fill(between: held.map(\.luma), before: k, after: next)
            for (h, m) in zip(held, maps) { send(h, m, &ctx) }
            filled += held.count
            held = []
        }
        key = next
        send(Held(time: ctx.timestamp, video: video, detections: detections, luma: luma), map, &ctx)
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        // No computed map after the last run: those frames keep the map recorded.
        if let k = key { for h in held { send(h, k.map, &ctx) } }
        held = []
        ctx.post("repaired", ["maps": String(filled)])
    }

    private mutating func send(_ h: Held, _ map: DisparityMap, _ ctx: inout NodeContext) {
        videoOut = h.video
        repaired = map
        detectionsOut = h.detections
        ctx.emit(at: h.time)
    }

    /// Whether `b` holds the very samples of `a` (a map sent again, not computed).
    static func sameSamples(_ a: DisparityMap, _ b: DisparityMap) -> Bool {
        let va = a.values.plane(0), vb = b.values.plane(0)
        guard va.width == vb.width, va.height == vb.height else { return false }
        for y in 0..<va.height {
            let ra = va.row(y, as: Float.self), rb = vb.row(y, as: Float.self)
            for x in 0..<va.width where ra[x] != rb[x] && !(ra[x].isNaN && rb[x].isNaN) { return false }
        }
        return true
    }
}
