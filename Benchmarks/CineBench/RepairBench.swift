// CineBench repair: a take a weak machine recorded, repaired after the take, against the same
// scene recorded with headroom. Benchmarks/repair/take.conf (graphs/cinematic.conf, unstabilized,
// 20 s) is recorded by the release binary with headroom (every frame's analysis computed), and
// twice live on one core shared with busy loops (REPAIR_BUSY, 3: the depth computed on a frame in
// twenty or fewer) — keeping its stereo pair (the asset's right input) and not — then
// `cinegraph render --repair` repairs each weak take: matching the depth again on the kept pair,
// or moving the computed maps. Every 10th frame of the headroom take's video
// is rendered in process (BokehRenderer, the recorded focus and aperture) from each take's
// analysis at the same instant; PSNR against the headroom render: as recorded, and repaired.
// REPAIR_STRONG / REPAIR_WEAK name existing takes instead of recording them.
import CineGStreamer
import CineMedia
import CineVision
import Foundation

func runRepairBench() throws {
    let env = ProcessInfo.processInfo.environment
    let busy = Int(env["REPAIR_BUSY"] ?? "") ?? 3
    print("\nrepair after the take — the same 20 s scene recorded with headroom and on one core shared with \(busy) busy loops, 1080p, renders compared in process")
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-repair-\(getpid())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // The same take without the kept pair: repaired by moving the computed maps only.
    // REPAIR_GRAPH=graphs/cinematic.conf: the stabilized graph (its pair kept through the stabilizer).
    let conf = env["REPAIR_GRAPH"] ?? "Benchmarks/repair/take.conf", withoutPair = "\(dir)/take-without-pair.conf"
    try String(contentsOfFile: conf, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.contains("right: camera.right") && !$0.contains("pair: steady.stabilized-pair") }.joined(separator: "\n")
        .write(toFile: withoutPair, atomically: true, encoding: .utf8)
    let strong = env["REPAIR_STRONG"] ?? "\(dir)/strong.cine.mkv"
    func record(_ path: String, graph: String, weak: Bool) throws {
        let sets = ["--set", "asset.path=\(path)", "--set", "meta.path=\(dir)/meta.jsonl", "--set", "viewfinder.port=8398",
                    "--set", "camera.duration=20s"]
        let args = ["run", graph, "--quiet"] + sets + (weak ? [] : ["--set", "camera.live=false"])
        // A weak machine: one core, shared with busy loops (a slower CPU, a browser, a call).
        var loops: [Process] = []
        defer { for p in loops { p.terminate() } }
        for _ in 0..<(weak ? busy : 0) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            p.arguments = ["-c", "0", "sh", "-c", "while :; do :; done"]
            try p.run()
            loops.append(p)
        }
        _ = try spawnWall(weak ? ["taskset", "-c", "0", bin] + args : [bin] + args, output: "\(dir)/record.log")
    }
    if env["REPAIR_STRONG"] == nil { try record(strong, graph: conf, weak: false) }
    let (header, strongRecords) = try AssetTrackReader.readMetadata(path: strong)
    var weakTakes: [(label: String, path: String)] = [("kept pair", env["REPAIR_WEAK"] ?? "\(dir)/weak.cine.mkv")]
    if env["REPAIR_WEAK"] == nil {
        try record(weakTakes[0].path, graph: conf, weak: true)
        weakTakes.append(("no pair", "\(dir)/weak-without-pair.cine.mkv"))
        try record(weakTakes[1].path, graph: withoutPair, weak: true)
    }
    var repairedTakes: [String] = []
    defer { if env["REPAIR_WEAK"] == nil { for r in repairedTakes { try? FileManager.default.removeItem(atPath: r) } } }
    for (label, weak) in weakTakes {
        let t = try spawnWall([bin, "render", weak, "--repair", "--quiet", "--preset", "ultrafast", "-o", "\(dir)/repaired.mp4"],
                              output: "\(dir)/repair.log")
        let repaired = weak.hasSuffix(".cine.mkv") ? String(weak.dropLast(9)) + ".repaired.cine.mkv" : weak + ".repaired.cine.mkv"
        repairedTakes.append(repaired)
        try compare(label: label, weak: weak, repaired: repaired, repairSeconds: t, strong: strong, header: header, strongRecords: strongRecords)
    }
    // REPAIR_PICTURE=FILE.png: one frame (REPAIR_PICTURE_FRAME, 150) of each take's map beside the picture.
    if let picture = env["REPAIR_PICTURE"], weakTakes.count == 2 {
        let frame = Int(env["REPAIR_PICTURE_FRAME"] ?? "") ?? 150
        try drawMaps(frame: frame, strong: strong, weak: weakTakes[0].path, moved: repairedTakes[1], matched: repairedTakes[0], to: picture)
        print("wrote \(picture) (frame \(frame))")
    }
}

/// Frame `index` of a track, read from the start.
private func image(_ path: String, _ track: AssetTrackReader.Track, _ index: Int) throws -> Image {
    let reader = try AssetTrackReader(path: path, track: track)
    for _ in 0..<index { _ = try reader.nextImage() }
    guard let (image, _) = try reader.nextImage() else { throw BenchError("\(path) has no frame \(index)") }
    return image
}

/// Six panels of 640×360, two across: the picture and the map computed with headroom; the weak
/// take's map as recorded (carried) and as repaired by moving the maps; as matched again on the
/// kept pair, and the kept pair itself. Maps grey, brighter nearer, on the headroom map's range.
private func drawMaps(frame: Int, strong: String, weak: String, moved: String, matched: String, to path: String) throws {
    let (pw, ph) = (640, 360)
    let out = Image(width: 2 * pw, height: 3 * ph, format: .i420)
    for p in 1...2 { for y in 0..<out.plane(p).height { out.plane(p).row(y).initializeMemory(as: UInt8.self, repeating: 128, count: out.plane(p).width) } }
    func paste(_ src: Image, column: Int, row: Int, colour: Bool, value: ((Int, Int) -> UInt8)? = nil) {
        for p in 0..<(colour ? 3 : 1) {
            let s = src.plane(p), d = out.plane(p)
            let w = p == 0 ? pw : pw / 2, h = p == 0 ? ph : ph / 2
            for y in 0..<h {
                let dr = d.row(row * h + y, as: UInt8.self) + column * w
                for x in 0..<w {
                    let sx = x * s.width / w, sy = y * s.height / h
                    dr[x] = value?(sx, sy) ?? s.row(sy, as: UInt8.self)[sx]
                }
            }
        }
    }
    let maps = try [strong, weak, moved, matched].map { try image($0, .disparity, frame) }
    // 16-bit samples (1/64 px); the range from the headroom map.
    var top = 1
    for y in 0..<maps[0].height { for x in 0..<maps[0].width { top = max(top, Int(maps[0].plane(0).row(y, as: UInt16.self)[x])) } }
    for (k, map) in maps.enumerated() {
        paste(map, column: k == 0 ? 1 : (k + 1) % 2, row: (k + 1) / 2, colour: false) { x, y in
            UInt8(min(255, Int(map.plane(0).row(y, as: UInt16.self)[x]) * 255 / top))
        }
    }
    paste(try image(strong, .video, frame), column: 0, row: 0, colour: true)
    paste(try image(weak, .pair, frame), column: 1, row: 2, colour: false)
    try ImageFile.write(out, to: path)
}

/// Renders every 10th frame of the headroom take from its own analysis, the weak take's and the
/// repaired take's, and reports the PSNRs.
private func compare(label: String, weak: String, repaired: String, repairSeconds t: Double, strong: String,
                     header: AssetHeader, strongRecords: [AssetFrameRecord]) throws {
    let weakTake = try TakeAnalysis(path: weak)
    let repairedTake = try TakeAnalysis(path: repaired)
    let carried = weakTake.records.filter { !($0.carried ?? []).isEmpty }.count
    let bytes = (try? FileManager.default.attributesOfItem(atPath: weak)[.size] as? Int) ?? 0
    report("\(label): weak take frames kept / analysis carried", "\(weakTake.records.count) of \(strongRecords.count) / \(carried) (\(bytes / 1_000_000) MB)")
    report("\(label): repair (render --repair, whole process)", String(format: "%.1f s for a %.0f s take", t, Double(strongRecords.count) / header.fps))

    let video = try AssetTrackReader(path: strong, track: .video)
    let maps = try AssetTrackReader(path: strong, track: .disparity)
    var asRecorded: [Double] = [], fixed: [Double] = [], sameFocus: [Double] = [], focusOff = (recorded: 0, repaired: 0), compared = 0
    let renderer = BokehRenderer()
    for (i, record) in strongRecords.enumerated() {
        guard let (frame, _) = try video.nextImage(), let (samples, _) = try maps.nextImage() else { break }
        guard i % 10 == 0, let focus = record.focus,
              let w = try weakTake.analysis(at: record.time, header: header),
              let r = try repairedTake.analysis(at: record.time, header: header) else { continue }
        let map = DisparityMap(quantized: samples, scale: header.disparityScale, referenceWidth: frame.width, referenceHeight: frame.height)
        let reference = try renderer.render(frame, disparity: map, focusDisparity: focus.focusDisparity, fNumber: focus.fNumber ?? 2.8)
        for (candidate, into) in [(w, 0), (r, 1)] {
            let f = candidate.focus ?? focus
            let image = try renderer.render(frame, disparity: candidate.map, focusDisparity: f.focusDisparity, fNumber: f.fNumber ?? 2.8)
            let mse = meanSquaredError(reference, image)
            if into == 0 { asRecorded.append(mse) } else { fixed.append(mse) }
            if abs(f.focusDisparity - focus.focusDisparity) > 0.1 * focus.focusDisparity {
                if into == 0 { focusOff.recorded += 1 } else { focusOff.repaired += 1 }
            } else if into == 1 {
                sameFocus.append(mse)
            }
        }
        compared += 1
    }
    func psnr(_ m: [Double]) -> Double { 10 * log10(255 * 255 / max(1e-9, m.reduce(0, +) / Double(max(1, m.count)))) }
    report("\(label): weak take rendered as recorded vs headroom take", String(format: "%.1f dB (%d frames; focus >10 %% off on %d)", psnr(asRecorded), compared, focusOff.recorded))
    report("\(label): weak take repaired vs headroom take", String(format: "%.1f dB (target ≥ 40 dB; focus >10 %% off on %d)", psnr(fixed), focusOff.repaired))
    report("\(label): repaired, frames whose focus agrees (the maps alone)", String(format: "%.1f dB (%d frames)", psnr(sameFocus), sameFocus.count))
}

/// A take's disparity maps and focus, read in time order and found by time.
private final class TakeAnalysis {
    let records: [AssetFrameRecord]
    private let header: AssetHeader
    private let maps: AssetTrackReader
    private var next = 0

    init(path: String) throws {
        (header, records) = try AssetTrackReader.readMetadata(path: path)
        maps = try AssetTrackReader(path: path, track: .disparity)
    }

    /// The map and focus of the frame at `time` (within 2 ms), reading forward; nil when the take
    /// has no frame then (lost live).
    func analysis(at time: Int64, header reference: AssetHeader) throws -> (map: DisparityMap, focus: FocusState?)? {
        while next < records.count && records[next].time < time - 2_000_000 {
            _ = try maps.nextImage()
            next += 1
        }
        guard next < records.count, abs(records[next].time - time) <= 2_000_000,
              let (samples, _) = try maps.nextImage() else { return nil }
        let record = records[next]
        next += 1
        return (DisparityMap(quantized: samples, scale: header.disparityScale, referenceWidth: reference.referenceWidth,
                             referenceHeight: reference.referenceHeight), record.focus)
    }
}

/// Mean squared luma difference of two frames of one size.
private func meanSquaredError(_ a: Image, _ b: Image) -> Double {
    var sum = 0.0
    for y in 0..<a.height {
        let ra = a.plane(0).row(y, as: UInt8.self), rb = b.plane(0).row(y, as: UInt8.self)
        for x in 0..<a.width {
            let e = Double(Int(ra[x]) - Int(rb[x]))
            sum += e * e
        }
    }
    return sum / Double(a.width * a.height)
}
