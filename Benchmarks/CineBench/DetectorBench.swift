// DetectorBench: cinegraph's cascade detector vs OpenCV's CascadeClassifier.detectMultiScale
// (opencv-python-headless < 5), same images, same XML, same parameters, same run — agreement
// (one-to-one matches at IoU ≥ 0.8) and time ratio at 640×480 and 1920×1080, 1 and 2 threads;
// then the live setting (faces at 640×360, detection every 3 frames, tracking between).
import CineMedia
import CineVision
import Foundation

/// The luma of a synthetic frame at `t` seconds, as gray8.
private func syntheticLuma(width: Int, height: Int, frame: Int, seed: UInt64 = 1) -> Image {
    let scene = SyntheticScene(SyntheticScene.Configuration(width: width, height: height, fps: 30, seed: seed))
    let l = Image(width: width, height: height, format: .i420), r = Image(width: width, height: height, format: .i420)
    scene.render(frame: frame, left: l, right: r, groundTruth: nil)
    let g = Image(width: width, height: height, format: .gray8)
    for y in 0..<height { g.plane(0).row(y).copyMemory(from: l.plane(0).row(y), byteCount: width) }
    return g
}

/// Writes a binary PGM, which OpenCV reads byte for byte.
private func writePGM(_ image: Image, _ path: String) throws {
    var data = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
    for y in 0..<image.height { data.append(UnsafeBufferPointer(start: image.plane(0).row(y, as: UInt8.self), count: image.width)) }
    try data.write(to: URL(fileURLWithPath: path))
}

/// One-to-one greedy matches at IoU ≥ 0.8.
private func matches(_ a: [CascadeRect], _ b: [CascadeRect]) -> Int {
    var pairs: [(Double, Int, Int)] = []
    for (i, x) in a.enumerated() { for (j, y) in b.enumerated() { let v = x.intersectionOverUnion(y); if v >= 0.8 { pairs.append((v, i, j)) } } }
    pairs.sort { $0.0 > $1.0 }
    var ua = Set<Int>(), ub = Set<Int>()
    for (_, i, j) in pairs where !ua.contains(i) && !ub.contains(j) { ua.insert(i); ub.insert(j) }
    return ua.count
}

func runDetectorBench() throws {
    print("\ndetector — cinegraph cascades vs OpenCV CascadeClassifier.detectMultiScale, same images, XML, parameters")
    let runs = Int(ProcessInfo.processInfo.environment["BENCH_DETECTOR_RUNS"] ?? "") ?? 3
    // BENCH_DETECTOR_CASCADES=lbp (or haar) keeps the cascades whose path contains it.
    // (Not `contains("")` for "no filter": Foundation's contains finds no empty string, and the
    // table silently vanished from `make bench` that way.)
    let only = ProcessInfo.processInfo.environment["BENCH_DETECTOR_CASCADES"] ?? ""
    let cascades = ["/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml",
                    "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml"].filter {
        only.isEmpty || $0.contains(only)
    }
    guard cascades.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) else {
        print("  skipped: opencv-data is not installed (scripts/setup.sh)")
        return
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-detector-bench").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    var images: [(String, Image)] = []
    for (w, h) in [(640, 480), (1920, 1080)] {
        for frame in [90, 150, 210, 270] { images.append(("synthetic \(w)x\(h) f\(frame)", syntheticLuma(width: w, height: h, frame: frame))) }
    }
    var manifest: [[String: Any]] = []
    for (i, (name, img)) in images.enumerated() {
        let path = "\(dir)/image\(i).pgm"
        try writePGM(img, path)
        manifest.append(["name": name, "path": path])
    }
    let params = CascadeDetector.Parameters(scaleFactor: 1.1, minNeighbors: 3)
    let manifestPath = dir + "/manifest.json"
    try JSONSerialization.data(withJSONObject: ["images": manifest, "cascades": cascades, "scaleFactor": params.scaleFactor,
                                                "minNeighbors": params.minNeighbors, "runs": runs])
        .write(to: URL(fileURLWithPath: manifestPath))

    // The peer first (its own process), then ours, in the same run.
    var peer: [String: (ms: Double, rects: [CascadeRect])] = [:]
    do {
        let data = try capture("\(try benchPython()) Benchmarks/peers/detector_peer.py \(manifestPath)")
        for line in data.split(separator: "\n") {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let image = o["image"] as? String, let xml = o["cascade"] as? String, let threads = o["threads"] as? Int,
                  let ms = o["ms"] as? Double, let rects = o["rects"] as? [[Int]] else { continue }
            peer["\(image)|\(xml)|\(threads)"] = (ms, rects.map { CascadeRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) })
        }
    } catch {
        print("  peer unavailable (\(error)); showing cinegraph only")
    }

    for xml in cascades {
        let detector = CascadeDetector(try CascadeClassifier(contentsOf: xml))
        let short = (xml as NSString).lastPathComponent
        for size in ["640x480", "1920x1080"] {
            for threads in [1, 2] {
                var p = params
                p.threads = threads
                var oursMs = 0.0, peerMs = 0.0, matched = 0, nOurs = 0, nPeer = 0
                for (name, img) in images where name.contains(" \(size) ") {
                    var rects: [CascadeRect] = []
                    _ = try detector.detect(in: img, parameters: p)  // warm-up
                    oursMs += try measure(runs) { rects = try detector.detect(in: img, parameters: p) }.median * 1000
                    if let ref = peer["\(name)|\(xml)|\(threads)"] {
                        peerMs += ref.ms
                        matched += matches(rects, ref.rects)
                        nPeer += ref.rects.count
                    }
                    nOurs += rects.count
                }
                let n = Double(images.filter { $0.0.contains(" \(size) ") }.count)
                let agreement = max(nOurs, nPeer) == 0 ? 100 : 100 * Double(matched) / Double(max(nOurs, nPeer))
                report("\(short) \(size) \(threads)T: ms/image cinegraph | OpenCV",
                       String(format: "%.1f | %.1f ms  (OpenCV/cinegraph %.2fx)", oursMs / n, peerMs / n, peerMs / max(oursMs, 1e-9)))
                report("  agreement IoU≥0.8 (matched / max(ours, OpenCV))",
                       String(format: "%.1f %%  (%d / max(%d, %d))", agreement, matched, nOurs, nPeer))
            }
        }
    }

    // The live setting: 640x360 frames, faces (frontal + profile), detect every 3 frames, track between.
    let scene = SyntheticScene(SyntheticScene.Configuration(width: 640, height: 360, fps: 30, seed: 1))
    let frames = 90
    var lumas: [Image] = []
    for f in 0..<frames {
        let l = Image(width: 640, height: 360, format: .i420), r = Image(width: 640, height: 360, format: .i420)
        scene.render(frame: 60 + f, left: l, right: r, groundTruth: nil)
        lumas.append(l)
    }
    // (types, profiles, scaleFactor, every): the node's defaults first, then cheaper settings.
    let settings: [(String, Bool, Double, Int, Int)] = [
        ("node defaults: frontal+profile, scale 1.1, every 3, full scan every 4th", true, 1.1, 3, 4),
        ("frontal+profile, scale 1.1, every 3, always full scan (no profile pass)", true, 1.1, 3, 1),
        ("frontal only, scale 1.1, every 3, full scan every 4th", false, 1.1, 3, 4),
        ("frontal only, scale 1.2, every 3, full scan every 4th", false, 1.2, 3, 4)]
    var trackTime = 0.0, trackFrames = 0
    for (label, profiles, scaleFactor, every, fullEvery) in settings {
        let live = try CascadeMultiDetector(types: ["humanFace"], profiles: profiles, detectWidth: 640,
                                            parameters: CascadeDetector.Parameters(scaleFactor: scaleFactor, minNeighbors: 3,
                                                                                   minWidth: 24, minHeight: 24, threads: 2))
        var tracker = ObjectTracker()
        var reported = 0, round = 0
        var detectTime = 0.0, worst = 0.0
        let total = try time {
            for (f, img) in lumas.enumerated() {
                if f % every == 0 {
                    var obs: [TrackerObservation] = []
                    let tracked = tracker.report().map(\.bounds)
                    let full = round % fullEvery == 0 || tracked.isEmpty
                    round += 1
                    let dt = try time { obs = try live.observe(img, around: full ? nil : tracked) }
                    detectTime += dt
                    worst = max(worst, dt)
                    trackTime += time { reported += tracker.update(obs).count }
                } else {
                    trackTime += time { reported += tracker.predict().count }
                }
                trackFrames += 1
            }
        }
        report("live 640x360 faces, \(label): ms/frame (aim < 8)",
               String(format: "%.2f ms  (%.1f ms per detection, worst %.0f ms, %d objects reported over %d frames)",
                      total * 1000 / Double(frames), detectTime * 1000 / Double((frames + every - 1) / every), worst * 1000,
                      reported, frames))
    }
    report("live: tracker cost per frame", String(format: "%.1f µs", trackTime * 1e6 / Double(trackFrames)))
}
