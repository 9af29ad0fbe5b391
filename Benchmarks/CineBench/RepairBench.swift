// CineBench repair: a take a weak machine recorded, repaired after the take, against the same
// scene recorded with headroom. Benchmarks/repair/take.conf (graphs/cinematic.conf, unstabilized,
// 20 s) is recorded twice by the release binary — with headroom (every frame's analysis computed)
// and live confined to one core (the analysis carried forward on most frames) — then
// `cinegraph render --repair` repairs the weak take. Every 10th frame of the headroom take's video
// is rendered in process (BokehRenderer, the recorded focus and aperture) from each take's
// analysis at the same instant; PSNR against the headroom render: as recorded, and repaired.
// REPAIR_STRONG / REPAIR_WEAK name existing takes instead of recording them.
import CineGStreamer
import CineMedia
import CineVision
import Foundation

func runRepairBench() throws {
    print("\nrepair after the take — the same 20 s scene recorded with headroom and on one core, 1080p, renders compared in process")
    let env = ProcessInfo.processInfo.environment
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-repair-\(getpid())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let strong = env["REPAIR_STRONG"] ?? "\(dir)/strong.cine.mkv"
    let weak = env["REPAIR_WEAK"] ?? "\(dir)/weak.cine.mkv"
    func record(_ path: String, oneCore: Bool) throws {
        let sets = ["--set", "asset.path=\(path)", "--set", "meta.path=\(dir)/meta.jsonl", "--set", "viewfinder.port=8398"]
        let args = ["run", "Benchmarks/repair/take.conf", "--quiet"] + sets + (oneCore ? [] : ["--set", "camera.live=false"])
        _ = try spawnWall(oneCore ? ["taskset", "-c", "0", bin] + args : [bin] + args, output: "\(dir)/record.log")
    }
    if env["REPAIR_STRONG"] == nil { try record(strong, oneCore: false) }
    if env["REPAIR_WEAK"] == nil { try record(weak, oneCore: true) }
    let t = try spawnWall([bin, "render", weak, "--repair", "--quiet", "--preset", "ultrafast", "-o", "\(dir)/repaired.mp4"],
                          output: "\(dir)/repair.log")
    let repaired = weak.hasSuffix(".cine.mkv") ? String(weak.dropLast(9)) + ".repaired.cine.mkv" : weak + ".repaired.cine.mkv"
    defer { if env["REPAIR_WEAK"] == nil { try? FileManager.default.removeItem(atPath: repaired) } }

    let (header, strongRecords) = try AssetTrackReader.readMetadata(path: strong)
    let weakTake = try TakeAnalysis(path: weak)
    let repairedTake = try TakeAnalysis(path: repaired)
    let carried = weakTake.records.filter { !($0.carried ?? []).isEmpty }.count
    report("weak take: frames kept / analysis carried", "\(weakTake.records.count) of \(strongRecords.count) / \(carried)")
    report("repair (render --repair, whole process)", String(format: "%.1f s for a %.0f s take", t, Double(strongRecords.count) / header.fps))

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
    report("weak take rendered as recorded vs headroom take", String(format: "%.1f dB (%d frames; focus >10 %% off on %d)", psnr(asRecorded), compared, focusOff.recorded))
    report("weak take repaired vs headroom take", String(format: "%.1f dB (target ≥ 40 dB; focus >10 %% off on %d)", psnr(fixed), focusOff.repaired))
    report("weak take repaired, frames whose focus agrees (the maps alone)", String(format: "%.1f dB (%d frames)", psnr(sameFocus), sameFocus.count))
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
