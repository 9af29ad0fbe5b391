// Live bench: the whole cinematic graph (graphs/cinematic.conf) run live by the release binary —
// synthetic 2×1920×1080 at 30 fps → disparity, detector, focus, preview bokeh, viewfinder,
// stabilizer, asset, metadata — for BENCH_LIVE_SECONDS (default 60). Reports the run's summary
// (fps, ms per frame and drops per node), frames in the asset, CPU use and peak memory.
import CineGStreamer
import Foundation

func runLiveBench() throws {
    let seconds = Int(ProcessInfo.processInfo.environment["BENCH_LIVE_SECONDS"] ?? "") ?? 60
    let size = ProcessInfo.processInfo.environment["BENCH_LIVE_SIZE"] ?? "1920x1080"
    print("\nlive — graphs/cinematic.conf, synthetic 2×\(size) at 30 fps, \(seconds) s")
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    guard FileManager.default.isExecutableFile(atPath: bin) else {
        throw BenchError("build cinegraph first (make bench does): \(bin) is missing")
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-live-\(getpid())").path
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: bin)
    p.arguments = ["run", "graphs/cinematic.conf", "--duration", "\(seconds)s", "--quiet", "--set", "camera.size=\(size)",
                   "--set", "asset.path=\(dir)/live.cine.mkv", "--set", "meta.path=\(dir)/live.jsonl",
                   "--set", "viewfinder.port=0"]
    let errors = Pipe()
    p.standardError = errors
    p.standardOutput = FileHandle.nullDevice
    let t0 = now()
    try p.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    let wall = now() - t0
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    guard p.terminationStatus == 0 else { throw BenchError("the live graph failed:\n\(text)") }
    if let table = text.range(of: "Summary of") { print(text[table.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)) }
    let frames = try MediaProbe.inspect(path: "\(dir)/live.cine.mkv", timeout: 60).frameCount
    report("asset frames kept (of \(seconds * 30) captured)", "\(frames)")
    report("CPU: both cores' busy share over the run", String(format: "%.0f %% (%.1f s CPU in %.1f s)", cpu / wall / 2 * 100, cpu, wall))
    report("peak resident memory", String(format: "%.0f MB", Double(usage.ru_maxrss) / 1024))
}
