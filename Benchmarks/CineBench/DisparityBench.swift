// DisparityBench: the stereo matcher beside OpenCV StereoSGBM (MODE_SGBM_3WAY and MODE_SGBM) in
// the same run, on the same PNG pairs and disparity range, at full and half resolution, 1 and 2
// threads — time ratio, bad-2.0 and density against exact ground truth — plus the live default.
import CineTestSupport
import CineGStreamer
import CineGraph
import CineMedia
import CineVision
import Foundation

/// One benchmark pair: gray8 views, exact truth, the disparity range (multiple of 16).
private struct BenchPair {
    let name: String
    let left: Image
    let right: Image
    let truth: Image
    let disparities: Int
}

/// Our result on one pair at one thread count.
private struct BenchResult {
    var ms: Double
    var bad2: Double
    var density: Double
}

/// bad-2.0 (holes count as bad) and density over all pixels (every pixel has ground truth).
private func scoreMap(_ map: DisparityMap, _ truth: Image) -> (bad2: Double, density: Double) {
    let w = truth.width, h = truth.height, vw = map.values.width, vh = map.values.height
    var bad = 0, valid = 0
    for y in 0..<h {
        let t = truth.plane(0).row(y, as: Float.self), v = map.values.plane(0).row(y * vh / h, as: Float.self)
        for x in 0..<w {
            let d = v[x * vw / w]
            if d.isFinite { valid += 1 }
            if !d.isFinite || abs(d - t[x]) > 2 { bad += 1 }
        }
    }
    return (Double(bad) / Double(w * h) * 100, Double(valid) / Double(w * h) * 100)
}

private func grayCopy(_ image: Image) -> Image {
    let g = Image(width: image.width, height: image.height, format: .gray8)
    for y in 0..<image.height {
        g.plane(0).row(y).copyMemory(from: image.plane(0).row(y), byteCount: image.width)
    }
    return g
}

/// Writes a gray8 image as PNG with GStreamer (`appsrc ! pngenc ! filesink`).
private func writePNG(_ image: Image, _ path: String) throws { try ImageFile.write(image, to: path) }

private func syntheticPair(_ name: String, width: Int, height: Int, disparities: Int) -> BenchPair {
    let scene = SyntheticScene(SyntheticScene.Configuration(width: width, height: height, fps: 30, seed: 1))
    let l = Image(width: width, height: height, format: .i420), r = Image(width: width, height: height, format: .i420)
    let t = Image(width: width, height: height, format: .float32)
    scene.render(frame: 150, left: l, right: r, groundTruth: t)
    return BenchPair(name: name, left: grayCopy(l), right: grayCopy(r), truth: t, disparities: disparities)
}


func runDisparityBench() throws {
    print("\ndisparity — cinegraph census+SGM (5 paths) vs OpenCV StereoSGBM, same PNGs, same range")
    let runs = Int(ProcessInfo.processInfo.environment["BENCH_DISPARITY_RUNS"] ?? "") ?? 7
    var pairs: [BenchPair] = [
        syntheticPair("synthetic 960x540 (full)", width: 960, height: 540, disparities: 64),
        syntheticPair("synthetic 480x270 (half)", width: 480, height: 270, disparities: 32),
    ]
    for scene in StereoTestPair.Scene.allCases {
        for (w, h, d, label) in [(640, 360, 64, "full"), (320, 180, 32, "half")] {
            let p = StereoTestPair(scene, width: w, height: h)
            pairs.append(
                BenchPair(
                    name: "\(scene.rawValue) \(w)x\(h) (\(label))", left: p.left, right: p.right,
                    truth: p.truth, disparities: d))
        }
    }

    // BENCH_DISPARITY_PAIRS=text keeps the pairs whose name contains it (for profiling one).
    if let only = ProcessInfo.processInfo.environment["BENCH_DISPARITY_PAIRS"] {
        pairs = pairs.filter { $0.name.contains(only) }
    }
    // Same images for both: PNGs and raw float32 truth in /tmp.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-disparity-bench").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    var manifest: [[String: Any]] = []
    for (i, pair) in pairs.enumerated() {
        let base = "\(dir)/pair\(i)"
        try writePNG(pair.left, base + "-left.png")
        try writePNG(pair.right, base + "-right.png")
        var raw = Data(capacity: pair.truth.width * pair.truth.height * 4)
        for y in 0..<pair.truth.height {
            raw.append(UnsafeBufferPointer(start: pair.truth.plane(0).row(y, as: Float.self), count: pair.truth.width))
        }
        try raw.write(to: URL(fileURLWithPath: base + "-truth.f32"))
        manifest.append([
            "name": pair.name, "left": base + "-left.png", "right": base + "-right.png",
            "truth": base + "-truth.f32", "width": pair.truth.width, "height": pair.truth.height,
            "disparities": pair.disparities, "runs": runs,
        ])
        // PNG is lossless gray8: OpenCV reads exactly the bytes our matcher gets.
    }
    // One manifest per pair, so each pair is timed for us and for OpenCV back to back (a
    // loaded machine then slows both alike).
    for (i, entry) in manifest.enumerated() {
        try JSONSerialization.data(withJSONObject: ["pairs": [entry]])
            .write(to: URL(fileURLWithPath: "\(dir)/manifest\(i).json"))
    }

    // The peer's interpreter (the venv is created once by scripts/bench-venv.sh).
    var python: String?
    var peerNote: String?
    do {
        python = try benchPython()
    } catch {
        peerNote = "OpenCV peer unavailable: \(error)"
    }

    var ours: [String: [Int: BenchResult]] = [:]
    var peer: [String: [String: [Int: BenchResult]]] = [:]
    for (i, pair) in pairs.enumerated() {
        // Ours. BENCH_DISPARITY_CONFIGS=3p1 (paths, threads) keeps one setting, for profiling.
        let only = ProcessInfo.processInfo.environment["BENCH_DISPARITY_CONFIGS"]
        for (paths, threads) in [(StereoMatcher.Paths.five, 1), (.five, 2), (.three, 1), (.three, 2)]
        where only.map({ $0.contains("\(paths == .five ? 5 : 3)p\(threads)") }) ?? true {
            let c = StereoMatcher.Configuration(
                scale: 1, maxDisparity: pair.disparities, paths: paths, threads: threads)
            let matcher = try StereoMatcher(c)
            var map = try matcher.match(left: pair.left, right: pair.right)
            var times: [Double] = []
            for _ in 0..<runs {
                let t = time { map = try! matcher.match(left: pair.left, right: pair.right) }
                times.append(t)
            }
            let s = scoreMap(map, pair.truth)
            ours[pair.name, default: [:]][threads + (paths == .three ? 10 : 0)] = BenchResult(
                ms: median(times) * 1000, bad2: s.bad2, density: s.density)
        }
        // The peer, on the same PNGs, right after.
        guard let python, peerNote == nil else { continue }
        do {
            let data = try capture("\(python) Benchmarks/peers/disparity_peer.py \(dir)/manifest\(i).json")
            for line in data.split(separator: "\n") {
                guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let name = o["pair"] as? String, let mode = o["mode"] as? String,
                    let threads = o["threads"] as? Int, let ms = o["ms"] as? Double, let bad2 = o["bad2"] as? Double,
                    let density = o["density"] as? Double
                else { continue }
                peer[name, default: [:]][mode, default: [:]][threads] = BenchResult(
                    ms: ms, bad2: bad2, density: density)
            }
        } catch {
            peerNote = "OpenCV peer failed: \(error)"
        }
    }

    // The table.
    print("(5p = ours with 5 paths, the counterpart of MODE_SGBM; 3p = 3 paths, the counterpart of SGBM_3WAY;")
    print(" x = peer time / our time, > 1 means we are faster; bad-2.0 over all pixels, holes count as bad)")
    print(
        String(
            format: "%-32@ %3@ %8@ %8@ %8@ %8@ %6@ %6@ %13@ %13@ %13@ %13@", "pair" as NSString, "thr" as NSString,
            "5p ms" as NSString, "3p ms" as NSString, "3WAY ms" as NSString, "SGBM ms" as NSString,
            "x3WAY" as NSString, "xSGBM" as NSString, "5p bad2/dens" as NSString, "3p bad2/dens" as NSString,
            "3WAY bad2/dens" as NSString, "SGBM bad2/dens" as NSString))
    var worstSpeedup = Double.infinity, worstSpeedup3 = Double.infinity, accuracyWins = 0, accuracyPairs = 0
    for pair in pairs {
        for threads in [1, 2] {
            guard let o = ours[pair.name]?[threads], let o3 = ours[pair.name]?[threads + 10] else { continue }
            let w3 = peer[pair.name]?["SGBM_3WAY"]?[threads], sg = peer[pair.name]?["SGBM"]?[threads]
            func f(_ r: BenchResult?) -> String {
                r.map { String(format: "%5.2f/%5.1f%%", $0.bad2, $0.density) } ?? "-"
            }
            func ms(_ r: BenchResult?) -> String { r.map { String(format: "%.1f", $0.ms) } ?? "-" }
            func ratio(_ r: BenchResult?, _ mine: BenchResult) -> String {
                r.map { String(format: "%.2f", $0.ms / mine.ms) } ?? "-"
            }
            print(
                String(
                    format: "%-32@ %3d %8@ %8@ %8@ %8@ %6@ %6@ %13@ %13@ %13@ %13@", pair.name as NSString, threads,
                    ms(o) as NSString, ms(o3) as NSString, ms(w3) as NSString, ms(sg) as NSString,
                    ratio(w3, o3) as NSString, ratio(sg, o) as NSString, f(o) as NSString, f(o3) as NSString,
                    f(w3) as NSString, f(sg) as NSString))
            if let w3 {
                if threads == 1 {
                    worstSpeedup = min(worstSpeedup, w3.ms / o.ms)
                    worstSpeedup3 = min(worstSpeedup3, w3.ms / o3.ms)
                }
                accuracyPairs += 1
                if o.bad2 <= w3.bad2 && o3.bad2 <= w3.bad2 { accuracyWins += 1 }
            }
        }
    }
    if let peerNote { print(peerNote) }
    if worstSpeedup.isFinite {
        report("disparity: slowest speed-up vs SGBM_3WAY, 1 thread, 5 paths", String(format: "%.2fx", worstSpeedup))
        report(
            "disparity: slowest speed-up vs SGBM_3WAY, 1 thread, 3 paths (aim ≥ 2)",
            String(format: "%.2fx", worstSpeedup3))
        report("disparity: pairs with bad-2.0 ≤ SGBM_3WAY, 5p and 3p (aim: all)", "\(accuracyWins) of \(accuracyPairs)")
    }

    // The live default: a 1080p pair at 480x270, 64 disparities, one thread.
    let live = syntheticPair("live", width: 1920, height: 1080, disparities: 256)
    let l = live.left, r = live.right
    for (label, up) in [("none", StereoMatcher.Upsampling.none), ("edge-aware", .edgeAware)] {
        let matcher = try StereoMatcher(StereoMatcher.Configuration(upsampling: up, threads: 1))
        var map = try matcher.match(left: l, right: r)
        var times: [Double] = []
        for _ in 0..<30 { times.append(time { map = try! matcher.match(left: l, right: r) }) }
        let s = scoreMap(map, live.truth)
        let t = median(times)
        report(
            "disparity live default 1080p→480x270, 64 disp, 1 thread, upsample \(label)",
            String(format: "%.1f ms (%.0f fps), bad-2.0 %.2f%%, density %.1f%%", t * 1000, 1 / t, s.bad2, s.density))
    }
}
