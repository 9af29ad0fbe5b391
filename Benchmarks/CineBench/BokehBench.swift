// BokehBench: the bokeh renderer at 1080p — ms per frame at f/1.4, f/2.8 and f/8 on one and
// two cores — beside OpenCV's filter2D with a disk of the same maximum radius (a uniform blur
// with no depth: the floor reference), measured in the same run.
import CineMedia
import CineVision
import Foundation

/// Times the bokeh renderer on a synthetic 1080p frame and runs the OpenCV peer.
func runBokehBench() throws {
    let width = 1920, height = 1080
    let scene = SyntheticScene(SyntheticScene.Configuration(width: width, height: height, fps: 30, seed: 1))
    // The first frame with a subject in view; focus on the nearest subject.
    var frame = 0
    while frame < scene.frameCount - 1 && scene.subjects(at: scene.time(ofFrame: frame)).isEmpty { frame += 15 }
    let focus = scene.subjects(at: scene.time(ofFrame: frame)).map(\.disparity).max() ?? scene.disparity(atDepth: 2)
    let left = Image(width: width, height: height, format: .i420), right = Image(width: width, height: height, format: .i420)
    let truth = Image(width: width, height: height, format: .float32)
    scene.render(frame: frame, left: left, right: right, groundTruth: truth)
    let fullMap = DisparityMap(values: truth, referenceWidth: width, referenceHeight: height)
    // A quarter-resolution map, as the stereo matcher delivers.
    let quarter = Image(width: width / 4, height: height / 4, format: .float32)
    for y in 0..<quarter.height {
        let src = truth.plane(0).row(y * 4 + 2, as: Float.self), dst = quarter.plane(0).row(y, as: Float.self)
        for x in 0..<quarter.width { dst[x] = src[x * 4 + 2] }
    }
    let quarterMap = DisparityMap(values: quarter, referenceWidth: width, referenceHeight: height)
    let frames = 30
    let pool = ImagePool()
    var settings = BokehRenderer.Settings()
    let maxRadius = Int((settings.maxBlur * Double(height)).rounded())
    print("\nbokeh 1080p, frame \(frame), focus disparity \(String(format: "%.1f", focus)) px, max blur radius \(maxRadius) px, quality \(settings.quality)")
    var twoCoreStandard: [Double: Double] = [:]
    for (mapName, map) in [("full-res map", fullMap), ("quarter-res map", quarterMap)] {
        for fNumber in [1.4, 2.8, 8.0] {
            for threads in [1, 2] {
                settings.threads = threads
                let renderer = BokehRenderer(settings: settings)
                for _ in 0..<2 { _ = try renderer.render(left, disparity: map, focusDisparity: focus, fNumber: fNumber, pool: pool) }
                let seconds = try measure(frames) {
                    _ = try renderer.render(left, disparity: map, focusDisparity: focus, fNumber: fNumber, pool: pool)
                }
                let (median, mean) = (seconds.median * 1000, seconds.mean * 1000)
                if threads == 2 && map.values.width == width { twoCoreStandard[fNumber] = median }
                report("bokeh f/\(fNumber) \(threads) core\(threads == 1 ? "" : "s"), \(mapName): ms/frame",
                       String(format: "%.2f ms median (mean %.2f)", median, mean))
            }
        }
    }
    for quality in [BokehQuality.draft, .high] {
        settings.quality = quality
        settings.threads = 2
        let renderer = BokehRenderer(settings: settings)
        _ = try renderer.render(left, disparity: fullMap, focusDisparity: focus, fNumber: 1.4, pool: pool)
        let seconds = try measure(quality == .high ? 8 : frames) {
            _ = try renderer.render(left, disparity: fullMap, focusDisparity: focus, fNumber: 1.4, pool: pool)
        }
        let (median, mean) = (seconds.median * 1000, seconds.mean * 1000)
        report("bokeh f/1.4 2 cores, quality \(quality): ms/frame", String(format: "%.2f ms median (mean %.2f)", median, mean))
    }
    // The floor reference: OpenCV filter2D, disk of the same radius, same frame size.
    let python = try benchPython()
    let peer = try capture("\(python) Benchmarks/peers/bokeh_peer.py --radius \(maxRadius) --frames 5")
    for line in peer.split(separator: "\n") {
        let fields = Dictionary(uniqueKeysWithValues: line.split(separator: " ").compactMap { f -> (String, String)? in
            let kv = f.split(separator: "=")
            return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
        })
        guard let threads = fields["threads"], let ms = fields["ms"].flatMap(Double.init) else { continue }
        report("OpenCV filter2D disk r=\(maxRadius) 1080p BGR, \(threads) thread(s): ms/frame", String(format: "%.2f ms median", ms))
        if threads == "2", let ours = twoCoreStandard[2.8] {
            report("bokeh f/2.8 2 cores vs filter2D 2 threads (speed ratio)", String(format: "%.1fx faster", ms / ours))
        }
    }
    try runBokehEdgeBench(python: python)
}

/// The edge test (`Benchmarks/bokeh/edge.py`): a sharp red subject before a textured plane,
/// exact disparity, through `cinegraph bokeh` as a user runs it — the subject's exactness, its
/// colour in the background ring, outlines, the blurred-foreground case, and PSNR/SSIM against
/// the layered reference inside and outside the subject.
func runBokehEdgeBench(python: String) throws {
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    guard FileManager.default.isExecutableFile(atPath: bin) else {
        throw BenchError("build cinegraph first (make bench does): \(bin) is missing")
    }
    print("\nbokeh edges — `cinegraph bokeh` on a 1280x720 layered scene (subject at disparity 40, plane at 4, f/2)")
    for quality in BokehQuality.allCases {
        let out = try capture("\(python) Benchmarks/bokeh/edge.py \(bin) --quality \(quality)")
        var v: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { v[String(kv[0])] = String(kv[1]) }
        }
        func f(_ key: String) -> String { v[key] ?? "?" }
        report("bokeh edge \(quality): in-focus subject PSNR / pixels exact", "\(f("inside_psnr_db")) dB / \(f("inside_exact")) %")
        report("bokeh edge \(quality): subject colour in the 2-12 px ring (aim <= 1 %)", "\(f("ring_bleed_pct")) % (2-5 px: \(f("ring2_5_bleed_pct")) %)")
        report("bokeh edge \(quality): outline dark / bright (codes)", "\(f("outline_dark_codes")) / \(f("outline_bright_codes"))")
        report("bokeh edge \(quality): vs layered reference PSNR in / out", "\(f("reference_psnr_inside_db")) / \(f("reference_psnr_outside_db")) dB")
        report("bokeh edge \(quality): vs layered reference SSIM in / out", "\(f("reference_ssim_inside")) / \(f("reference_ssim_outside"))")
        report("bokeh edge \(quality): blurred foreground spread, ours / reference", "\(f("foreground_spread_px")) / \(f("foreground_reference_spread_px")) px")
        report("bokeh edge \(quality): whole process (decode, render, encode)", "\(f("wall_s")) s")
    }
}
