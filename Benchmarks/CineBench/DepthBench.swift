// CineBench depth: the depth a render trusts, judged against the truth — the synthetic camera's
// takes rendered from the stereo matcher's map (at its processing resolution, and upsampled to the
// frame edge-aware), from that map refined with the person matte (PersonDepthRefiner), from the
// exact disparity box-averaged to the matcher's resolution (the best a quarter-resolution map can
// do), to twice it (what a map of twice the size could do) and to each block's majority side (what
// mixed samples on an outline are worth: next to nothing), each with its outline redrawn by the person matte (MatteEdgeRefiner, as the bokeh node does)
// and by the full-resolution views (StereoEdgeRefiner), the refined and the exact map each with
// the other's samples near the true edges (what the outline is worth), the refined map with one
// kind of outline sample exact (`withExact`: what mending that kind alone is worth), from the
// matcher run at twice the map's size and averaged back before refinement (what a finer match is
// worth; the matcher's cost at both sizes is reported), and from the exact
// disparity — each rendered as `cinegraph render` does (the renderer's guided upsampling of a coarse
// map), and the refined and averaged maps also read bilinearly (the renderer before it); PSNR of
// each render against the exact one over the whole frame and within 12 px of the true depth
// edges; how much a still background breathes (`breathing`); the refinement's cost and the
// render's with and without the guided upsampling; and the same comparison on a real pair with its
// ground truth (the Middlebury motorcycle, `realPhotoDepth`). The refiner sees every frame, as in a take. `DEPTH_DUMP=folder` writes seed 1's frame 160 (or `DEPTH_DUMP_FRAME`'s, one of 120, 140, …; `all`: every judged frame of every seed, in a folder each)
// (or `DEPTH_DUMP_SEED`'s) as pictures (frame, maps, renders, their difference); `BREATH_ONLY=1`
// measures the breathing alone; `DEPTH_FRAMES=1` prints each judged frame's figures for the refined map;
// `REFINE_COST_ONLY=1` times the refinement alone (seed 2's frames 100–159, matched once, refined
// over and over: the loop to profile).
import CineGStreamer
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
    let edgeAware = try StereoMatcher(.init(upsampling: .edgeAware))
    // The matcher at twice the map's size, its map averaged back to 320×180 before refinement:
    // what a finer match is worth, and what it costs.
    let finer = try StereoMatcher(.init(scale: 0.5, maxDisparity: 128))
    var matchCosts: [[Double]] = [[], []]
    let personMatte = try PersonMatte()
    let dump = ProcessInfo.processInfo.environment["DEPTH_DUMP"]
    if ProcessInfo.processInfo.environment["REFINE_COST_ONLY"] != nil {
        return try refinementCost(matcher: matcher, personMatte: personMatte, width: w, height: h)
    }
    var costs: [Double] = [], stepCosts: [Double] = []
    var bilinear = BokehRenderer.Settings()
    bilinear.guidedUpsampling = false
    let timedBilinear = BokehRenderer(settings: bilinear), timedGuided = BokehRenderer()
    var renderCosts: [[Double]] = [[], []]
    for seed: UInt64 in (ProcessInfo.processInfo.environment["BREATH_ONLY"] != nil ? [] : [1, 2, 3]) {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: seed))
        var refiner = tunedRefiner()
        var rows: [(String, [DepthRenderComparison])] = [
            ("matcher (320×180)", []), ("matcher, edge-aware to 1280×720", []), ("matcher + person refinement", []),
            ("exact disparity averaged to 320×180", []), ("exact disparity averaged to 640×360 (a map of twice the size)", []),
            ("matcher + matte outline", []), ("matcher + person refinement + matte outline", []),
            ("exact averaged + matte outline", []),
            ("matcher + stereo edges", []), ("matcher + person refinement + stereo edges", []),
            ("exact averaged + stereo edges", []),
            ("refined, but exact within 2 samples of true edges", []), ("exact averaged, but refined within 2 samples of true edges", []),
            ("matcher + person refinement, the renderer's bilinear map (no guided upsampling)", []),
            ("exact averaged, the renderer's bilinear map", []),
            ("refined, exact outline samples in the stereo border", []), ("refined, exact outline samples on the near side", []),
            ("refined, exact outline samples left of the near side", []), ("refined, exact other outline samples", []),
            ("matcher at 640×360 averaged to 320×180 + person refinement", []),
            ("matcher + person refinement + steps by the views (the node's `steps`)", []),
            ("exact, each 4×4 block's majority side (no mixed samples)", []),
        ]
        var finerRefiner = tunedRefiner()
        var stepsRefiner = tunedRefiner()
        stepsRefiner.settings.stepsByTheViews = true
        // The two rows read bilinearly, as the renderer did before its guided upsampling.
        let bilinearRows = rows.indices.filter { rows[$0].0.contains("bilinear map") }

        var edges = StereoEdgeRefiner()
        var outline = MatteEdgeRefiner()
        var steady = graphsMatteSmoother()
        // The refiner sees every frame, as in a take (its temporal filter counts on it); six
        // frames 20 apart are judged.
        for frame in 100..<240 {
            let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
            let truth = Image(width: w, height: h, format: .float32)
            scene.render(frame: frame, left: left, right: right, groundTruth: truth)
            let tm = DispatchTime.now().uptimeNanoseconds
            let map = try matcher.match(left: left, right: right)
            let tf = DispatchTime.now().uptimeNanoseconds
            let finerMap = halved(try finer.match(left: left, right: right))
            matchCosts[0].append(Double(tf - tm) / 1e6)
            matchCosts[1].append(Double(DispatchTime.now().uptimeNanoseconds - tf) / 1e6)
            let matte = try personMatte.estimate(left)
            steady.smooth(matte)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let better = refiner.refine(map, matte: matte, image: left, right: right)
            costs.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            let finerRefined = finerRefiner.refine(finerMap, matte: matte, image: left, right: right)
            let ts = DispatchTime.now().uptimeNanoseconds
            let stepped = stepsRefiner.refine(map, matte: matte, image: left, right: right)
            stepCosts.append(Double(DispatchTime.now().uptimeNanoseconds - ts) / 1e6)
            guard frame >= 120, frame % 20 == 0 else { continue }
            let exact = DisparityMap(values: truth, referenceWidth: w, referenceHeight: h)
            let averaged = DisparityMap(values: boxAverage(truth, factor: 4), referenceWidth: w, referenceHeight: h)
            func drawn(_ m: DisparityMap) -> DisparityMap {
                let r = outline.refine(m, matte: matte, guide: left)
                return DisparityMap(values: r.values.copy(), referenceWidth: w, referenceHeight: h)
            }
            let maps = [
                map, try edgeAware.match(left: left, right: right), better, averaged,
                DisparityMap(values: boxAverage(truth, factor: 2), referenceWidth: w, referenceHeight: h),
                drawn(map), drawn(better), drawn(averaged),
                edges.refine(map, left: left, right: right), edges.refine(better, left: left, right: right),
                edges.refine(averaged, left: left, right: right),
                mix(better, averaged, outlineFrom: averaged), mix(averaged, better, outlineFrom: averaged),
                better, averaged,
                withExact(better, averaged, .border), withExact(better, averaged, .nearSide), withExact(better, averaged, .leftOfNear),
                withExact(better, averaged, .otherFar), finerRefined, stepped,
                DisparityMap(values: majorityAverage(truth, factor: 4), referenceWidth: w, referenceHeight: h),
            ]
            for (renderer, k) in [(timedBilinear, 0), (timedGuided, 1)] {
                let t = DispatchTime.now().uptimeNanoseconds
                _ = try renderer.render(left, disparity: better, focusDisparity: 40, fNumber: 2.8)
                renderCosts[k].append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
            }
            for (k, m) in maps.enumerated() {
                rows[k].1.append(try DepthRenderComparison(frame: left, truth: exact, map: m, settings: bilinearRows.contains(k) ? bilinear : .init()))
            }
            if ProcessInfo.processInfo.environment["DEPTH_FRAMES"] != nil, let c = rows[2].1.last {
                print(String(format: "  seed %d frame %d refined: %.1f dB / %.1f dB, %.1f %% off", Int(seed), frame, c.wholePSNR, c.edgePSNR, 100 * c.edgeOffShare))
            }
            if let dump {
                let env = ProcessInfo.processInfo.environment
                if env["DEPTH_DUMP_FRAME"] == "all" {
                    try dumpPictures("\(dump)/seed\(seed)-frame\(frame)", frame: left, exact: exact, maps: maps, matte: matte, bilinearMaps: bilinearRows)
                } else if seed == UInt64(env["DEPTH_DUMP_SEED"] ?? "1"), frame == Int(env["DEPTH_DUMP_FRAME"] ?? "160") {
                    try dumpPictures(dump, frame: left, exact: exact, maps: maps, matte: matte, bilinearMaps: bilinearRows)
                }
            }
        }
        for (name, all) in rows {
            let m = DepthRenderComparison.mean(all)
            report("seed \(seed) \(name): whole frame / depth edges PSNR",
                   String(format: "%.2f dB / %.2f dB, %.2f %% of edge pixels off by > 10 levels", m.wholePSNR, m.edgePSNR, 100 * m.edgeOffShare))
        }
    }
    if ProcessInfo.processInfo.environment["BREATH_ONLY"] == nil { try realPhotoDepth() }
    for seed: UInt64 in [1, 2, 3] {
        let b = try breathing(seed: seed, frames: 120..<140)
        report("seed \(seed) still background, frame-to-frame change the exact render does not have",
               String(format: "matcher %.4f levels, refined %.4f levels (target ≤ 0.1)", b.matcher, b.refined))
    }
    costs.sort()
    guard !costs.isEmpty else { return }
    let medians = renderCosts.map { $0.sorted()[$0.count / 2] }
    let matches = matchCosts.map { $0.sorted()[$0.count / 2] }
    report("the matcher on a 720p pair", String(format: "median %.2f ms at 320×180, %.2f ms at 640×360 and averaged to 320×180 (two cores)", matches[0], matches[1]))
    report("render of a 720p frame from the refined 320×180 map", String(format: "median %.2f ms with guided upsampling, %.2f ms reading the map bilinearly", medians[1], medians[0]))
    report("person refinement at the map's resolution (320×180)", String(format: "median %.2f ms (the views' test on two cores)", costs[costs.count / 2]))
    stepCosts.sort()
    report("person refinement + steps by the views (320×180)", String(format: "median %.2f ms", stepCosts[stepCosts.count / 2]))
}

/// The refinement's cost alone: seed 2's frames 100–159 matched and matted once, then refined in
/// order five times over (`REFINE_STEPS=1` with the steps).
private func refinementCost(matcher: StereoMatcher, personMatte: PersonMatte, width w: Int, height h: Int) throws {
    let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: 2))
    var steady = graphsMatteSmoother()
    var inputs: [(map: DisparityMap, matte: Image, left: Image, right: Image)] = []
    for frame in 100..<160 {
        let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
        scene.render(frame: frame, left: left, right: right, groundTruth: nil)
        let matte = try personMatte.estimate(left)
        steady.smooth(matte)
        inputs.append((try matcher.match(left: left, right: right), matte.copy(), left, right))
    }
    var costs: [Double] = []
    for _ in 0..<5 {
        var refiner = tunedRefiner()
        for input in inputs {
            let t = DispatchTime.now().uptimeNanoseconds
            _ = refiner.refine(input.map, matte: input.matte, image: input.left, right: input.right)
            costs.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
        }
    }
    costs.sort()
    report("person refinement alone (320×180, \(costs.count) runs)",
           String(format: "median %.2f ms, 10th–90th percentile %.2f–%.2f ms", costs[costs.count / 2], costs[costs.count / 10], costs[costs.count * 9 / 10]))
}

/// A person refiner with the settings `REFINE_TEMPORAL`, `REFINE_STILL`, `REFINE_HELD`,
/// `REFINE_QUIET`, `REFINE_PERSON` (the matte's person level), `REFINE_INTERIOR` (its inside
/// level), `REFINE_REACH` and `REFINE_OUTER_REACH` (the left outline's reach inside a region and outside), `REFINE_SOFT_TOP`, `REFINE_SOFT_LEVEL`
/// and `REFINE_SOFT_TOLERANCE` (the soft matte's rows, level and tolerance for the top outline),
/// `REFINE_STEPS=1` (the steps by the views) and `REFINE_THREADS` (cores) name, for trying them.
private func tunedRefiner() -> PersonDepthRefiner {
    var refiner = PersonDepthRefiner()
    let env = ProcessInfo.processInfo.environment
    if let t = env["REFINE_TEMPORAL"].flatMap(Float.init) { refiner.settings.temporal = t }
    if let t = env["REFINE_STILL"].flatMap(Float.init) { refiner.settings.stillThreshold = t }
    if let t = env["REFINE_HELD"].flatMap(Float.init) { refiner.settings.heldStill = t }
    if let t = env["REFINE_QUIET"].flatMap(Float.init) { refiner.settings.stillPicture = t }
    if let t = env["REFINE_PERSON"].flatMap(Float.init) { refiner.settings.personLevel = t }
    if let t = env["REFINE_INTERIOR"].flatMap(Float.init) { refiner.settings.interiorLevel = t }
    if let t = env["REFINE_REACH"].flatMap(Int.init) { refiner.settings.leftOutlineReach = t }
    if let t = env["REFINE_OUTER_REACH"].flatMap(Int.init) { refiner.settings.leftOutlineOuterReach = t }
    if let t = env["REFINE_SOFT_TOP"].flatMap(Int.init) { refiner.settings.softTopReach = t }
    if let t = env["REFINE_SOFT_LEVEL"].flatMap(Float.init) { refiner.settings.softTopLevel = t }
    if let t = env["REFINE_SOFT_TOLERANCE"].flatMap(Float.init) { refiner.settings.softTopTolerance = t }
    if env["REFINE_STEPS"] == "1" { refiner.settings.stepsByTheViews = true }
    if let t = env["REFINE_THREADS"].flatMap(Int.init) { refiner.settings.threads = t }
    if env["REFINE_OUT_OF_VIEW"] == "0" { refiner.settings.outOfView = false }
    if env["REFINE_BORDER_WHOLE"] == "0" { refiner.settings.borderWhole = false }
    if let t = env["REFINE_FATTENING_MATCH"].flatMap(Float.init) { refiner.settings.fatteningMatch = t }
    return refiner
}

/// The matte steadied as the stereo graphs' `matte` node does (its defaults: smoothing 0.8,
/// tolerance 64); `MATTE_SMOOTHING=0` measures the raw matte.
private func graphsMatteSmoother() -> MatteSmoother {
    let strength = ProcessInfo.processInfo.environment["MATTE_SMOOTHING"].flatMap(Double.init) ?? 0.8
    return MatteSmoother(strength: strength, tolerance: 64)
}

/// `map` at half its size: each 2×2 block's finite mean (infinity where none is), and the block's
/// lowest confidence.
private func halved(_ map: DisparityMap) -> DisparityMap {
    let values = boxAverage(map.values, factor: 2)
    let confidence = map.confidence.map { c in
        let out = Image(width: values.width, height: values.height, format: .gray8)
        for y in 0..<out.height {
            let o = out.plane(0).row(y, as: UInt8.self)
            let r0 = c.plane(0).row(2 * y, as: UInt8.self), r1 = c.plane(0).row(2 * y + 1, as: UInt8.self)
            for x in 0..<out.width { o[x] = min(r0[2 * x], r0[2 * x + 1], r1[2 * x], r1[2 * x + 1]) }
        }
        return out
    }
    return DisparityMap(values: values, confidence: confidence, referenceWidth: map.referenceWidth, referenceHeight: map.referenceHeight)
}

/// `values` reduced to one sample per `f`×`f` block: `reduce` of the block's finite values
/// (infinity where none is).
private func blocks(_ values: Image, factor f: Int, _ reduce: ([Float]) -> Float) -> Image {
    let out = Image(width: values.width / f, height: values.height / f, format: .float32)
    let source = values.plane(0), target = out.plane(0)
    var v: [Float] = []
    for y in 0..<out.height {
        let d = target.row(y, as: Float.self)
        for x in 0..<out.width {
            v.removeAll(keepingCapacity: true)
            for yy in y * f..<(y + 1) * f {
                let s = source.row(yy, as: Float.self)
                for xx in x * f..<(x + 1) * f where s[xx].isFinite { v.append(s[xx]) }
            }
            d[x] = v.isEmpty ? .infinity : reduce(v)
        }
    }
    return out
}

/// Each `f`×`f` block's finite mean.
private func boxAverage(_ values: Image, factor f: Int) -> Image {
    blocks(values, factor: f) { $0.reduce(0, +) / Float($0.count) }
}

/// The truth averaged over each block's majority side only: where a block holds two depths more
/// than 2 px apart (split at their midpoint), the side with more pixels — a map without mixed samples.
private func majorityAverage(_ values: Image, factor f: Int) -> Image {
    blocks(values, factor: f) { v in
        let lo = v.min()!, hi = v.max()!, mid = (lo + hi) / 2
        let near = v.filter { $0 > mid }, far = v.filter { $0 <= mid }
        let side = hi - lo <= 2 ? v : (near.count >= far.count ? near : far)
        return side.reduce(0, +) / Float(side.count)
    }
}

/// Writes the frame's luma, the person matte, each map (grey, near = bright) and the renders' luma difference
/// (×8) as PGM files in `folder`.
private func dumpPictures(_ folder: String, frame: Image, exact: DisparityMap, maps: [DisparityMap], matte: Image,
                          bilinearMaps: [Int]) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    func pgm(_ name: String, _ w: Int, _ h: Int, _ pixel: (Int, Int) -> UInt8) throws {
        var data = Data("P5\n\(w) \(h)\n255\n".utf8)
        for y in 0..<h { for x in 0..<w { data.append(pixel(x, y)) } }
        try data.write(to: URL(fileURLWithPath: "\(folder)/\(name).pgm"))
    }
    try pgm("frame", frame.width, frame.height) { x, y in frame.plane(0).row(y, as: UInt8.self)[x] }
    try pgm("matte", matte.width, matte.height) { x, y in matte.plane(0).row(y, as: UInt8.self)[x] }
    if let c = maps[0].confidence {
        try pgm("confidence", c.width, c.height) { x, y in c.plane(0).row(y, as: UInt8.self)[x] }
    }
    for (k, m) in ([exact] + maps).enumerated() {
        let v = m.values
        try pgm("map\(k)", frame.width, frame.height) { x, y in
            let d = v.plane(0).row(y * v.height / frame.height, as: Float.self)[x * v.width / frame.width]
            return d.isFinite ? UInt8(max(0, min(255, d * 2))) : 0
        }
    }
    // Focus on the nearest subject, as the comparison does (the 95th percentile of the truth).
    var finite: [Float] = []
    for y in stride(from: 0, to: exact.values.height, by: 4) {
        let r = exact.values.plane(0).row(y, as: Float.self)
        for x in stride(from: 0, to: exact.values.width, by: 4) where r[x].isFinite { finite.append(r[x]) }
    }
    finite.sort()
    let focus = Double(finite[finite.count * 95 / 100])
    var bilinear = BokehRenderer.Settings()
    bilinear.guidedUpsampling = false
    let renders = try ([exact] + maps).enumerated().map { k, m in
        try BokehRenderer(settings: bilinearMaps.contains(k - 1) ? bilinear : .init()).render(frame, disparity: m, focusDisparity: focus, fNumber: 2.8)
    }
    for (k, r) in renders.enumerated() {
        try pgm("render\(k)", frame.width, frame.height) { x, y in r.plane(0).row(y, as: UInt8.self)[x] }
    }
    for k in 1..<renders.count {
        try pgm("diff\(k)", frame.width, frame.height) { x, y in
            let a = Int(renders[0].plane(0).row(y, as: UInt8.self)[x]), b = Int(renders[k].plane(0).row(y, as: UInt8.self)[x])
            return UInt8(min(255, abs(a - b) * 8))
        }
    }
}


/// `base` with the samples within 2 of a depth step of `truth` taken from `outline`: what the
/// outline band is worth, against what the rest is.
func mix(_ base: DisparityMap, _ outline: DisparityMap, outlineFrom truth: DisparityMap) -> DisparityMap {
    let w = base.values.width, h = base.values.height
    let out = base.values.copy()
    let t = truth.values.plane(0)
    for y in 0..<h {
        for x in 0..<w {
            var edge = false
            for yy in max(0, y - 2)...min(h - 1, y + 2) { for xx in max(0, x - 2)...min(w - 1, x + 2) where abs(t.row(yy, as: Float.self)[xx] - t.row(y, as: Float.self)[x]) > 2 { edge = true } }
            if edge { out.plane(0).row(y, as: Float.self)[x] = outline.values.plane(0).row(y, as: Float.self)[x] }
        }
    }
    return DisparityMap(values: out, referenceWidth: base.referenceWidth, referenceHeight: base.referenceHeight)
}

/// How much the background "breathes": on consecutive frames of a still camera, how much the
/// render of one frame changes when it is rendered from this frame's map instead of the last
/// frame's (mean absolute luma change, levels), over the pixels farther than the largest blur
/// plus the edge band from anything whose true disparity changed — where the render from the
/// exact disparity does not change at all. Focus is held at one disparity, so only the maps move
/// the picture (the sensor noise moves both renders alike, and is left out this way).
func breathing(seed: UInt64, frames: Range<Int>) throws -> (matcher: Double, refined: Double) {
    let w = 1280, h = 720
    let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: seed))
    let matcher = try StereoMatcher()
    let personMatte = try PersonMatte()
    var refiner = tunedRefiner()
    var steady = graphsMatteSmoother()
    let renderer = BokehRenderer()
    var last: (matcher: DisparityMap, refined: DisparityMap, truth: Image)?
    var sums = (0.0, 0.0), count = 0
    let reach = Int(renderer.maxRadius(height: h)) + DepthRenderComparison.edgeBand
    let focus = 45.0
    var heat = [Double](repeating: 0, count: w * h)
    for frame in frames {
        let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
        let truth = Image(width: w, height: h, format: .float32)
        scene.render(frame: frame, left: left, right: right, groundTruth: truth)
        let map = try matcher.match(left: left, right: right)
        let matte = try personMatte.estimate(left)
        steady.smooth(matte)
        let refined = refiner.refine(map, matte: matte, image: left, right: right)
        defer { last = (map, refined, truth) }
        guard let last else { continue }
        let renders = try [map, last.matcher, refined, last.refined].map {
            try renderer.render(left, disparity: $0, focusDisparity: focus, fNumber: 2.8)
        }
        // Where anything moved, and everything within reach of it, is left out.
        var integral = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            let a = truth.plane(0).row(y, as: Float.self), b = last.truth.plane(0).row(y, as: Float.self)
            var run: Int32 = 0
            for x in 0..<w {
                let moved = a[x].isFinite != b[x].isFinite || (a[x].isFinite && abs(a[x] - b[x]) > 0.01)
                run += moved ? 1 : 0
                integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + run
            }
        }
        for y in 0..<h {
            let y0 = max(0, y - reach), y1 = min(h, y + reach + 1)
            let m1 = renders[0].plane(0).row(y, as: UInt8.self), m0 = renders[1].plane(0).row(y, as: UInt8.self)
            let r1 = renders[2].plane(0).row(y, as: UInt8.self), r0 = renders[3].plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                let x0 = max(0, x - reach), x1 = min(w, x + reach + 1)
                let moved = integral[y1 * (w + 1) + x1] - integral[y0 * (w + 1) + x1] - integral[y1 * (w + 1) + x0] + integral[y0 * (w + 1) + x0]
                guard moved == 0 else { continue }
                sums.0 += Double(abs(Int(m1[x]) - Int(m0[x])))
                sums.1 += Double(abs(Int(r1[x]) - Int(r0[x])))
                heat[y * w + x] += Double(abs(Int(r1[x]) - Int(r0[x])))
                count += 1
            }
        }
    }
    if let dump = ProcessInfo.processInfo.environment["BREATH_DUMP"] {
        var data = Data("P5\n\(w) \(h)\n255\n".utf8)
        for v in heat { data.append(UInt8(min(255, v * 10))) }
        try data.write(to: URL(fileURLWithPath: "\(dump)-\(seed).pgm"))
    }
    return count > 0 ? (sums.0 / Double(count), sums.1 / Double(count)) : (0, 0)
}

/// The same comparison on a real photo: the Middlebury motorcycle pair from scikit-image (741×500,
/// cropped to 740 columns), its ground-truth disparity, and the matcher's map at a quarter of the
/// size, rendered reading the map bilinearly and with the guided upsampling (focus on the nearest
/// subject, f/2.8). Whether the frame's edges guide a real picture's depth as well as a synthetic one's.
func realPhotoDepth() throws {
    let python = try benchPython()
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-depth-real").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    _ = try capture("""
        \(python) -c "import numpy as np, cv2; from skimage import data; l, r, d = data.stereo_motorcycle(); \
        cv2.imwrite('\(dir)/left.png', cv2.cvtColor(l, cv2.COLOR_RGB2GRAY)[:, :740]); \
        cv2.imwrite('\(dir)/right.png', cv2.cvtColor(r, cv2.COLOR_RGB2GRAY)[:, :740]); \
        d = np.ascontiguousarray(d[:, :740].astype('<f4')); \
        open('\(dir)/truth.pfm', 'wb').write(b'Pf\\n740 500\\n-1.0\\n' + d[::-1].tobytes())"
        """)
    let left = try ImageFile.read("\(dir)/left.png", as: .gray8), right = try ImageFile.read("\(dir)/right.png", as: .gray8)
    let truthValues = try PortableFloatMap(contentsOf: "\(dir)/truth.pfm").values
    let w = left.width, h = left.height
    let frame = Image(width: w, height: h, format: .i420)
    for y in 0..<h { frame.plane(0).row(y, as: UInt8.self).update(from: left.plane(0).row(y, as: UInt8.self), count: w) }
    frame.plane(1).fill(byte: 128)
    frame.plane(2).fill(byte: 128)
    let truth = DisparityMap(values: truthValues, referenceWidth: w, referenceHeight: h)
    let map = try StereoMatcher(.init(maxDisparity: 128)).match(left: left, right: right)
    var bilinear = BokehRenderer.Settings()
    bilinear.guidedUpsampling = false
    let plain = try DepthRenderComparison(frame: frame, truth: truth, map: map, settings: bilinear)
    let guided = try DepthRenderComparison(frame: frame, truth: truth, map: map)
    // The truth averaged to the map's grid (its finite samples; 4×4 blocks): the best such a map can do.
    let averaged = DisparityMap(values: boxAverage(truthValues, factor: 4), referenceWidth: w, referenceHeight: h)
    let idealPlain = try DepthRenderComparison(frame: frame, truth: truth, map: averaged, settings: bilinear)
    let idealGuided = try DepthRenderComparison(frame: frame, truth: truth, map: averaged)
    // No person in view: the refiner's parts that act without one (the fill of what the right
    // camera cannot see at the left edge, the hold where the picture stands still) must not
    // harm a real pair.
    let blank = Image(width: w / 4, height: h / 4, format: .gray8)
    blank.plane(0).fill(byte: 0)
    var refiner = PersonDepthRefiner()
    let refined = try DepthRenderComparison(frame: frame, truth: truth, map: refiner.refine(map, matte: blank, image: left, right: right))
    for (name, c) in [("the matcher's map read bilinearly", plain), ("the matcher's map, guided upsampling", guided),
                      ("the matcher's map refined (no person in view), guided", refined),
                      ("the truth averaged to that grid, read bilinearly", idealPlain), ("the truth averaged, guided", idealGuided)] {
        report("real photo (Middlebury motorcycle, \(map.values.width)×\(map.values.height) map), \(name): whole frame / depth edges PSNR",
               String(format: "%.1f dB / %.1f dB, %.1f %% of edge pixels off by > 10 levels", c.wholePSNR, c.edgePSNR, 100 * c.edgeOffShare))
    }
}

/// The outline samples of a map (within 2 samples of a step of the truth), in four kinds.
enum OutlineKind { case border, nearSide, leftOfNear, otherFar }

/// `base` with one kind of outline sample taken from `truth` (the exact disparity averaged to
/// the map's grid): what mending that kind alone is worth. The kinds: samples in the first
/// 64 px (the stereo border); on the near side of a step; on the far side with the near side
/// within 2 samples to their right (where the far side is hidden from the right camera); the
/// other far-side samples.
func withExact(_ base: DisparityMap, _ truth: DisparityMap, _ kind: OutlineKind) -> DisparityMap {
    let w = base.values.width, h = base.values.height
    let out = base.values.copy()
    let t = truth.values.plane(0)
    let unit = base.referenceWidth / w
    func v(_ x: Int, _ y: Int) -> Float { t.row(y, as: Float.self)[x] }
    for y in 0..<h {
        for x in 0..<w {
            var edge = false, nearest: Float = -1, nearRight = false
            for yy in max(0, y - 2)...min(h - 1, y + 2) {
                for xx in max(0, x - 2)...min(w - 1, x + 2) {
                    if abs(v(xx, yy) - v(x, y)) > 2 { edge = true }
                    nearest = max(nearest, v(xx, yy))
                }
            }
            for xx in (x + 1)..<min(w, x + 3) where v(xx, y) > v(x, y) + 2 { nearRight = true }
            guard edge else { continue }
            let k: OutlineKind = x * unit < 64 ? .border : v(x, y) >= nearest - 1 ? .nearSide : nearRight ? .leftOfNear : .otherFar
            if k == kind { out.plane(0).row(y, as: Float.self)[x] = v(x, y) }
        }
    }
    return DisparityMap(values: out, referenceWidth: base.referenceWidth, referenceHeight: base.referenceHeight)
}
