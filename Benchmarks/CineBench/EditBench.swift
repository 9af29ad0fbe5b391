// CineBench edit: the editor as its user meets it — `cinegraph edit` on a 30 s 1080p30 take,
// frames fetched over HTTP as the page fetches them: seek-to-frame latency (random frames,
// seeded) and preview playback rate; the peer is ffmpeg extracting one frame at a time.
import CineViewfinder
import CineVision
import Foundation

func runEditBench() throws {
    print("\nedit — `cinegraph edit` on a 30 s 1080p30 take (synthetic camera), frames over HTTP")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-edit-bench").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let take = folder + "/take1080-v2.cine.mkv"  // v2: keyframes every half second
    let binary = ".build/release/cinegraph"
    if !FileManager.default.fileExists(atPath: take) {
        let conf = folder + "/record.conf"
        try """
            nodes:
              camera: { kind: synthetic, size: 1920x1080, live: false, duration: 30s, fps: 30, seed: 3 }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, detections: focus.detections,
                       focus: focus.focus, path: "\(take)", fps: 30 }
            """.write(toFile: conf, atomically: true, encoding: .utf8)
        _ = try capture("\(binary) run \(conf) --quiet 2>/dev/null")
    }
    // The editor as a user starts it; its first line names the address.
    let editor = Process()
    editor.executableURL = URL(fileURLWithPath: binary)
    editor.arguments = ["edit", take, "--port", "0", "--changes", folder + "/bench.changes.json"]
    let out = Pipe()
    editor.standardOutput = out
    editor.standardError = FileHandle.nullDevice
    try editor.run()
    defer { editor.terminate(); editor.waitUntilExit() }
    var line = ""
    while !line.contains("\n") {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { throw BenchError("cinegraph edit printed no address") }
        line += String(decoding: chunk, as: UTF8.self)
    }
    let first = line.split(separator: "\n").first ?? ""
    guard let url = first.split(separator: " ").last(where: { $0.hasPrefix("http") }).map({ String($0).trimmingCharacters(in: .whitespacesAndNewlines) })
    else { throw BenchError("no address in: \(line)") }

    func get(_ path: String) throws -> Double {
        let started = now()
        let reply = try HTTPExchange(method: "GET", url: URL(string: url + path)!).send(timeout: 30)
        guard reply.status == 200, reply.body.count >= 1000 else {
            throw BenchError("\(path): HTTP \(reply.status), \(reply.body.count) bytes")
        }
        return (now() - started) * 1000
    }
    _ = try get("api/frame?index=0")
    var rng = SeededRandom(seed: 7)
    let frames = (0..<100).map { _ in rng.index(below: 900) }
    let measured = try frames.map { try get("api/frame?index=\($0)") }
    if ProcessInfo.processInfo.environment["BENCH_EDIT_DETAIL"] != nil {
        for (f, ms) in zip(frames, measured).sorted(by: { $0.1 > $1.1 }).prefix(12) { print("  frame \(f) (\(f % 30) after its keyframe): \(Int(ms)) ms") }
    }
    let seeks = measured.sorted()
    let p50 = seeks[50], p95 = seeks[95]
    report("seek: frame at the playhead, 960x540, p50 / p95 (aim <= 150 ms)", String(format: "%.0f / %.0f ms", p50, p95))
    // Playback as the page plays: the next frame at 640 wide, one request after another.
    let playback = try time { for i in 300..<450 { _ = try get("api/frame?index=\(i)&width=640") } }
    report("playback: frames in sequence, 640 wide (aim >= 15 fps)", String(format: "%.1f fps", 150 / playback))
    // Peer: ffmpeg extracting the frame at a time (accurate seek), whole process, 20 frames.
    var peer: [Double] = []
    for i in frames.prefix(20) {
        peer.append(try time {
            _ = try capture("ffmpeg -v error -ss \(Double(i) / 30) -i \(take) -map 0:v:0 -frames:v 1 -s 960x540 -y \(folder)/peer.jpg")
        } * 1000)
    }
    peer.sort()
    report("seek peer: ffmpeg -ss T -frames:v 1 (whole process), p50", String(format: "%.0f ms", peer[10]))
    report("seek ratio (ffmpeg p50 / cinegraph edit p50)", String(format: "%.1f×", peer[10] / p50))
}
