// RepairGraph: the graph that repairs a take a weak machine recorded — the carried disparity
// maps re-made (depth-repair), the faces found again on every recorded frame, focus decided again
// — into a new cinematic asset. `cinegraph repair` runs it; `cinegraph render --repair` renders
// its result.
import CineGraph
import CineMedia

/// Builds the configuration of a repair: asset-source → depth-repair → detector → focus → asset;
/// for a take that kept its stereo pair, disparity → matte → depth-refine on the kept pair
/// feed depth-repair the maps matched again.
///
/// The recorded video is kept as it is (re-encoded at the asset's high quality); what a weak
/// machine computed on only some frames live is computed again after the take: the disparity of
/// the carried frames from the computed maps on either side (``DepthRepairNode``), the detections
/// on the recorded video with the shipped live graph's detector (`every: 6`, tracking between),
/// reading the repaired maps, and the focus with the automatic rules as live. User decisions
/// recorded live (a tap) are not carried over: edit the repaired take.
public enum RepairGraph {
    /// The name of the node whose frames count the repair's progress.
    public static let progressNode = "asset"

    /// The graph repairing `asset` (with `header`, first record `first`) into `output`.
    public static func spec(asset: String, output: String, header: AssetHeader, first: AssetFrameRecord,
                            preset: String = "veryfast") -> GraphSpec {
        var g = GraphSpec(name: "repair")
        g.add("source", kind: "asset-source", ["path": asset])
        var repairInputs = ["video": "source.video", "disparity": "source.disparity", "detections": "source.detections"]
        if header.pairWidth != nil {
            // The take kept its stereo pair: the carried maps are matched again as the shipped
            // stereo graphs match them live (disparity, person matte, depth-refine; their defaults).
            g.add("disparity", kind: "disparity", inputs: ["stereo": "source.stereo"], [:])
            g.add("matte", kind: "matte", inputs: ["image": "source.video"], [:])
            g.add("refine", kind: "depth-refine",
                  inputs: ["disparity": "disparity.disparity", "matte": "matte.matte", "stereo": "source.stereo"], [:])
            repairInputs["recomputed"] = "refine.disparity"
            repairInputs["record"] = "source.record"
        }
        g.add("depth", kind: "depth-repair", inputs: repairInputs, [:])
        g.add("faces", kind: "detector", inputs: ["image": "depth.video", "disparity": "depth.disparity"], ["every": 6])
        g.add("focus", kind: "focus", inputs: ["detections": "faces.detections", "disparity": "depth.disparity"],
              ["aperture": first.focus?.fNumber ?? 2.8])
        var sink: [String: any ParameterValue] = ["path": output, "fps": header.fps, "preset": preset]
        if let f = header.focalLengthPixels { sink["focal-length"] = f }
        if let b = header.baselineMetres { sink["baseline"] = b }
        g.add(progressNode, kind: "asset", inputs: [
            "video": "depth.video", "disparity": "depth.disparity", "detections": "focus.detections", "focus": "focus.focus",
        ], sink)
        return g
    }
}
