// StabilizerBench: the stabilizer at 1080p — per-frame estimation and warp cost, then, on the same
// synthetic shaky clips written to disk losslessly, cinegraph against ffmpeg's vid.stab (two-pass:
// vidstabdetect + vidstabtransform) and deshake: processing fps, residual jitter and crop, the
// jitter and crop measured by one metric (StabilizationJitterMeter) on every output.
import CineTestSupport
import CineGStreamer
import CineGraph
import CineMedia
import CineVision
import Foundation

/// One shaky test clip: its generator settings and where it was written.
private struct ShakyBenchClip {
    var name: String
    var configuration: ShakyClipGenerator.Configuration
    var path: String
}

/// What the metric says about one output file.
private struct StabilizedFileFigures {
    var jitter: StabilizationJitterMeter.Result
    var crop: Double
    var frames: Int
}

/// Runs the stabilizer section of `make bench`.
func runStabilizerBench() throws {
    let width = 1920, height = 1080
    let frames = Int(ProcessInfo.processInfo.environment["BENCH_STABILIZER_FRAMES"] ?? "") ?? 240
    let mode = StabilizationMode.cinematicExtended
    print(
        "\nstabilizer 1080p, mode \(mode) (lookahead \(mode.lookaheadFrames), crop \(Int(mode.maxCropFraction * 100)) %), \(frames) frames per clip"
    )
    try runStabilizerCostBench(width: width, height: height, mode: mode)
    guard frames > 0 else { return }  // BENCH_STABILIZER_FRAMES=0: the per-frame costs only

    guard (try? shell("command -v ffmpeg")) != nil else {
        print("  ffmpeg not found: run scripts/setup.sh for the vid.stab / deshake comparison")
        return
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinebench-stabilizer").path
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    var base = ShakyClipGenerator.Configuration()
    base.width = width
    base.height = height
    base.frameCount = frames
    base.jitterAmplitude = 10
    base.jitterBand = 1.5...6
    base.rotationJitter = 0.003
    var handheld = base
    handheld.seed = 11
    var panning = base
    panning.seed = 12
    panning.panX = 4
    panning.panY = -1
    let clips = [
        ShakyBenchClip(name: "handheld", configuration: handheld, path: dir + "/handheld.mkv"),
        ShakyBenchClip(name: "pan", configuration: panning, path: dir + "/pan.mkv"),
    ]
    let binary = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
    ).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    // vid.stab's `zoom` is the percentage of each dimension cropped (zoom=18 → crop 18 %).
    let vidstabZoom = mode.maxCropFraction * 100
    for clip in clips {
        let tWrite = try time { try writeLossless(clip) }
        print(
            "  clip '\(clip.name)': ±\(Int(clip.configuration.jitterAmplitude)) px at \(clip.configuration.jitterBand) Hz, rotation ±\(clip.configuration.rotationJitter) rad, pan (\(clip.configuration.panX), \(clip.configuration.panY)) px/frame → \(clip.path) (x264 lossless, written in \(String(format: "%.1f", tWrite)) s)"
        )
        let input = try measureFile(clip.path, source: nil)
        report(
            "  [\(clip.name)] input",
            String(format: "jitter %.3f px/frame, wobble %.2f px", input.jitter.jitter, input.jitter.wobble))

        // Processing speed, decode included for everyone, no encode: ours in-process (decode →
        // estimate → smooth → warp); ffmpeg's passes to the null muxer.
        let decodeOnly = try time { _ = try decodeLoop(clip.path) { _ in } }
        var stabilizer = try Stabilizer<Void>(
            configuration: .init(mode: mode), width: width, height: height, format: .i420)
        let warp = StabilizationWarp(pool: ImagePool(limit: 8))
        var emitted = 0
        let ours = try time {
            _ = try decodeLoop(clip.path) { frame in
                for r in try stabilizer.push(frame, ()) {
                    _ = try warp.apply(r.correction, to: r.frame)
                    emitted += 1
                }
            }
            for r in stabilizer.finish() {
                _ = try warp.apply(r.correction, to: r.frame)
                emitted += 1
            }
        }
        let ffDecode = try shell("ffmpeg -nostdin -y -i \(clip.path) -f null -")
        let trf = dir + "/\(clip.name).trf"
        let detect = try shell("ffmpeg -nostdin -y -i \(clip.path) -vf vidstabdetect=result=\(trf) -f null -")
        let vidstabFilter =
            "vidstabtransform=input=\(trf):smoothing=\(mode.lookaheadFrames):optzoom=0:zoom=\(String(format: "%.2f", vidstabZoom)):crop=black"
        let transform = try shell("ffmpeg -nostdin -y -i \(clip.path) -vf \(vidstabFilter) -f null -")
        let deshakeTime = try shell("ffmpeg -nostdin -y -i \(clip.path) -vf deshake -f null -")
        let n = Double(frames)
        report(
            "  [\(clip.name)] cinegraph decode+stabilize fps (\(emitted) frames)",
            String(format: "%.1f fps (decode alone %.0f fps)", n / ours, n / decodeOnly))
        report(
            "  [\(clip.name)] vid.stab detect+transform fps",
            String(
                format: "%.1f fps (detect %.1f, transform %.1f; ffmpeg decode alone %.0f fps)",
                n / (detect + transform), n / detect, n / transform, n / ffDecode))
        report("  [\(clip.name)] deshake fps", String(format: "%.1f fps", n / deshakeTime))
        // Decode excluded: each side's wall time minus its own decoding (vid.stab decodes twice);
        // meaningless when the machine was busier during the decode-only run than during ours.
        let excluded =
            ours > 1.1 * decodeOnly
            ? String(format: "%.1f×", max(0, detect + transform - 2 * ffDecode) / (ours - decodeOnly))
            : "n/a (noisy run)"
        report(
            "  [\(clip.name)] speed ratio cinegraph / vid.stab (aim ≥ 5)",
            String(
                format: "%.2f× decode included (%@ decode excluded)",
                (detect + transform) / ours, excluded))

        // Outputs for the metric, all through x264 at high quality.
        let oursPath = dir + "/\(clip.name)-cinegraph.mkv"
        let cli = try shell(
            "\(binary) stabilize \(clip.path) -o \(oursPath) --mode \(mode.argumentName) --bitrate 60000 --preset ultrafast --quiet"
        )
        let vidstabPath = dir + "/\(clip.name)-vidstab.mkv", vidstabAutoPath = dir + "/\(clip.name)-vidstab-optzoom.mkv"
        let deshakePath = dir + "/\(clip.name)-deshake.mkv"
        let x264 = "-c:v libx264 -preset ultrafast -crf 8 -pix_fmt yuv420p"
        _ = try shell("ffmpeg -nostdin -y -i \(clip.path) -vf \(vidstabFilter) \(x264) \(vidstabPath)")
        _ = try shell(
            "ffmpeg -nostdin -y -i \(clip.path) -vf vidstabtransform=input=\(trf):smoothing=\(mode.lookaheadFrames):optzoom=1 \(x264) \(vidstabAutoPath)"
        )
        _ = try shell("ffmpeg -nostdin -y -i \(clip.path) -vf deshake \(x264) \(deshakePath)")
        report(
            "  [\(clip.name)] cinegraph stabilize CLI wall (incl. x264 encode)",
            String(format: "%.1f s (%.1f fps)", cli, n / cli))
        let rows: [(String, String)] = [
            ("cinegraph \(mode.argumentName)", oursPath),
            ("vid.stab smoothing=\(mode.lookaheadFrames), zoom=ours", vidstabPath),
            ("vid.stab smoothing=\(mode.lookaheadFrames), optzoom=1", vidstabAutoPath),
            ("deshake (defaults, edges mirrored)", deshakePath),
        ]
        for (name, path) in rows {
            let f = try measureFile(path, source: clip.path)
            // Output pixels are source pixels magnified by the crop's zoom: both are shown.
            report(
                "  [\(clip.name)] \(name)",
                String(
                    format:
                        "jitter %.3f px/frame (%.3f in source px, %.1f %% of input), wobble %.2f px, crop %.1f %%, %d frames",
                    f.jitter.jitter, f.jitter.jitter * (1 - f.crop),
                    100 * f.jitter.jitter * (1 - f.crop) / input.jitter.jitter,
                    f.jitter.wobble, f.crop * 100, f.frames))
        }
        print(
            "  peer: ffmpeg -i \(clip.name).mkv -vf vidstabdetect=result=T -f null -; ffmpeg -i \(clip.name).mkv -vf \(vidstabFilter.replacingOccurrences(of: trf, with: "T")) …"
        )
    }
}

/// Per-frame costs on frames in memory: estimation + smoothing (what the stabilizer adds), the
/// warp on one and two cores, and the disparity warp.
private func runStabilizerCostBench(width: Int, height: Int, mode: StabilizationMode) throws {
    var c = ShakyClipGenerator.Configuration()
    c.width = width
    c.height = height
    c.frameCount = 40
    c.jitterAmplitude = 10
    c.rotationJitter = 0.003
    let gen = try ShakyClipGenerator(configuration: c)
    let frames = (0..<c.frameCount).map { gen.frame(at: $0) }
    var stabilizer = try Stabilizer<Void>(configuration: .init(mode: mode), width: width, height: height, format: .i420)
    var pushTimes: [Double] = []
    var ready: [Stabilizer<Void>.Ready] = []
    for f in frames {
        let t = try time { ready += try stabilizer.push(f, ()) }
        pushTimes.append(t)
    }
    ready += stabilizer.finish()
    pushTimes.removeFirst(2)
    pushTimes.sort()
    report(
        "stabilizer 1080p: estimation + smoothing per frame (median / worst)",
        String(format: "%.2f / %.2f ms", pushTimes[pushTimes.count / 2] * 1000, pushTimes.last! * 1000))
    let warp = StabilizationWarp(pool: ImagePool(limit: 8))
    for r in ready.prefix(3) { _ = try warp.apply(r.correction, to: r.frame) }
    var warpTimes: [Double] = []
    for r in ready { warpTimes.append(try time { _ = try warp.apply(r.correction, to: r.frame) }) }
    warpTimes.sort()
    report(
        "stabilizer 1080p: warp I420 per frame, 2 cores (median)",
        String(format: "%.2f ms", warpTimes[warpTimes.count / 2] * 1000))
    // Stereo-safe corrections (shift and zoom, what a graph with disparity uses): the row path.
    var safeTimes: [Double] = []
    for r in ready {
        let t = r.correction.stabilizing
        let safe = StabilizationCorrection(frameIndex: r.correction.frameIndex,
                                           stabilizing: SimilarityTransform(a: t.scale, b: 0, dx: t.dx, dy: t.dy), zoom: r.correction.zoom)
        safeTimes.append(try time { _ = try warp.apply(safe, to: r.frame) })
    }
    safeTimes.sort()
    report(
        "stabilizer 1080p: warp I420 per frame, stereo-safe (no rotation), 2 cores (median)",
        String(format: "%.2f ms", safeTimes[safeTimes.count / 2] * 1000))
    let values = Image(width: width / 4, height: height / 4, format: .float32)
    values.plane(0).fill(byte: 0x41)
    let map = DisparityMap(values: values, referenceWidth: width, referenceHeight: height)
    var mapTimes: [Double] = []
    for r in ready { mapTimes.append(try time { _ = try warp.apply(r.correction, to: map) }) }
    mapTimes.sort()
    report(
        "stabilizer 1080p: warp 480x270 disparity per frame (median)",
        String(format: "%.3f ms", mapTimes[mapTimes.count / 2] * 1000))
}

/// Writes a clip as lossless H.264 (x264 quantizer 0) in Matroska through GStreamer.
private func writeLossless(_ clip: ShakyBenchClip) throws {
    let c = clip.configuration
    let gen = try ShakyClipGenerator(configuration: c)
    let pipeline = try Pipeline(
        "appsrc name=src ! x264enc pass=quant quantizer=0 speed-preset=ultrafast ! h264parse ! matroskamux ! filesink location=\"\(clip.path)\""
    )
    let writer = try AppSrcWriter(pipeline: pipeline, format: .i420, width: c.width, height: c.height, fps: c.frameRate)
    try pipeline.play()
    let pool = ImagePool(limit: 8)
    // Rendering is the slow part: two frames at a time on the two cores.
    var t = 0
    while t < c.frameCount {
        let count = min(2, c.frameCount - t)
        let batch = StabilizerBenchBatch(count: count), first = t
        DispatchQueue.concurrentPerform(iterations: count) { i in batch.set(i, gen.frame(at: first + i, pool: pool)) }
        for i in 0..<count { try writer.push(batch.get(i), at: Timestamp(frame: t + i, fps: c.frameRate)) }
        t += count
    }
    writer.endOfStream()
    guard try pipeline.waitForEndOfStream(timeout: 120) else {
        throw BenchError("writing \(clip.path) did not finish")
    }
    pipeline.stop()
}

/// Frames rendered in parallel, collected by index.
private final class StabilizerBenchBatch: @unchecked Sendable {
    private let lock = NSLock()
    private var images: [Image?]
    init(count: Int) { images = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ image: Image) { lock.withLock { images[i] = image } }
    func get(_ i: Int) -> Image { lock.withLock { images[i]! } }
}

/// Decodes `path` as I420, calling `body` per frame; returns the frame count.
private func decodeLoop(_ path: String, _ body: (Image) throws -> Void) throws -> Int {
    let p = try Pipeline(
        "filesrc location=\"\(path)\" ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false max-buffers=4"
    )
    let reader = try AppSinkReader(pipeline: p, name: "sink", pool: ImagePool())
    try p.play()
    defer { p.stop() }
    var n = 0
    loop: while true {
        switch try reader.next(timeout: 30) {
        case .frame(let image, _):
            try body(image)
            n += 1
        case .endOfStream: break loop
        case .timeout: throw BenchError("decoding \(path) stalled after \(n) frames")
        }
    }
    return n
}

/// The metric on a file: jitter over all frames, and (with its source) the crop as the median
/// zoom against the source at a few frames.
private func measureFile(_ path: String, source: String?) throws -> StabilizedFileFigures {
    var meter = try StabilizationJitterMeter()
    var originals: [Int: Image] = [:]
    let probes = [40, 80, 120, 160]
    if let source {
        var i = 0
        _ = try decodeLoop(source) { frame in
            if probes.contains(i) { originals[i] = frame.copy() }
            i += 1
        }
    }
    var crops: [Double] = []
    var i = 0
    let n = try decodeLoop(path) { frame in
        try meter.push(frame)
        if let o = originals[i] { crops.append(try StabilizationJitterMeter.crop(source: o, output: frame)) }
        i += 1
    }
    crops.sort()
    return StabilizedFileFigures(jitter: meter.result, crop: crops.isEmpty ? 0 : crops[crops.count / 2], frames: n)
}
