// CineBench depth: the depth a render trusts, judged against the truth — the synthetic camera's
// takes rendered from the stereo matcher's map, from that map refined with the person matte
// (PersonDepthRefiner), and from the exact disparity; PSNR of each render against the exact one
// over the whole frame and within 12 px of the true depth edges, and the refinement's cost.
import CineInference
import CineMedia
import CineTestSupport
import CineVision
import Dispatch
import Foundation

func runDepthBench() throws {
    print("\ndepth the render trusts — renders from our map vs the render from the exact disparity (720p, f/2.8, focus on the nearest subject)")
    let w = 1280, h = 720
    let matcher = try StereoMatcher()
    let personMatte = try PersonMatte()
    var costs: [Double] = []
    for seed: UInt64 in [1, 2, 3] {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: seed))
        var refiner = PersonDepthRefiner()
        var raw: [DepthRenderComparison] = [], refined: [DepthRenderComparison] = []
        for frame in stride(from: 120, to: 240, by: 20) {
            let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
            let truth = Image(width: w, height: h, format: .float32)
            scene.render(frame: frame, left: left, right: right, groundTruth: truth)
            let map = try matcher.match(left: left, right: right)
            let matte = try personMatte.estimate(left)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let better = refiner.refine(map, matte: matte)
            costs.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            let exact = DisparityMap(values: truth, referenceWidth: w, referenceHeight: h)
            raw.append(try DepthRenderComparison(frame: left, truth: exact, map: map))
            refined.append(try DepthRenderComparison(frame: left, truth: exact, map: better))
        }
        for (name, all) in [("matcher", raw), ("matcher + person refinement", refined)] {
            let m = DepthRenderComparison.mean(all)
            report("seed \(seed) \(name): whole frame / depth edges PSNR",
                   String(format: "%.1f dB / %.1f dB, %.1f %% of edge pixels off by > 10 levels", m.wholePSNR, m.edgePSNR, 100 * m.edgeOffShare))
        }
    }
    costs.sort()
    report("person refinement at the map's resolution (320×180)", String(format: "median %.2f ms, one core", costs[costs.count / 2]))
}
