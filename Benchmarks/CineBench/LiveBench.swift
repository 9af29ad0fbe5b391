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
    // BENCH_LIVE_BAKED=960|1280|1920 adds a baked live output beside the graph: the preview bokeh
    // recorded as a movie (960), or a bokeh at that width of its own recorded (x264 ultrafast).
    var config = "graphs/cinematic.conf"
    if let baked = ProcessInfo.processInfo.environment["BENCH_LIVE_BAKED"].flatMap(Int.init) {
        var text = try String(contentsOfFile: config, encoding: .utf8)
        if baked == 960 {
            text += "  baked: { kind: movie, video: bokeh.video, preset: ultrafast, path: \(dir)/baked.mp4 }\n"
        } else {
            text += """
                  baked-size: { kind: resize, video: camera.left, width: \(baked) }
                  baked-bokeh: { kind: bokeh, image: baked-size.resized, disparity: disparity.disparity, focus: focus.focus }
                  baked: { kind: movie, video: baked-bokeh.video, preset: ultrafast, path: \(dir)/baked.mp4 }

                """
        }
        config = "\(dir)/cinematic-baked.conf"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        print("  with a baked \(baked)-wide bokeh movie beside it (\(dir)/baked.mp4)")
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: bin)
    p.arguments = ["run", config, "--duration", "\(seconds)s", "--quiet", "--set", "camera.size=\(size)",
                   "--set", "asset.path=\(dir)/live.cine.mkv", "--set", "meta.path=\(dir)/live.jsonl",
                   "--set", "viewfinder.port=0"]
    let errors = Pipe()
    p.standardError = errors
    p.standardOutput = FileHandle.nullDevice
    // CPU and peak memory of this child alone: earlier sections' peers (python, gst-launch) are
    // children too, so CPU is the difference across the run and the peak is the child's own VmHWM.
    let cpuBefore = childrenCPUSeconds()
    let t0 = now()
    try p.run()
    let peak = PeakMemoryWatcher(pid: p.processIdentifier)
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    let wall = now() - t0
    let cpu = childrenCPUSeconds() - cpuBefore
    guard p.terminationStatus == 0 else { throw BenchError("the live graph failed:\n\(text)") }
    if let table = text.range(of: "Summary of") { print(text[table.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)) }
    let frames = try MediaProbe.inspect(path: "\(dir)/live.cine.mkv", timeout: 60).frameCount
    report("asset frames kept (of \(seconds * 30) captured)", "\(frames)")
    if FileManager.default.fileExists(atPath: "\(dir)/baked.mp4") {
        let baked = try MediaProbe.inspect(path: "\(dir)/baked.mp4", timeout: 60)
        report("baked movie frames (\(baked.width)x\(baked.height))", "\(baked.frameCount)")
    }
    report("CPU: both cores' busy share over the run", String(format: "%.0f %% (%.1f s CPU in %.1f s)", cpu / wall / 2 * 100, cpu, wall))
    report("peak resident memory", String(format: "%.0f MB", Double(peak.peakKiB) / 1024))
}

/// CPU seconds (user + system) of this process's waited-for children so far.
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Samples a running process's peak resident memory (`VmHWM` in /proc/PID/status) every
/// 200 ms until it exits; `peakKiB` is the last value read.
final class PeakMemoryWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// The highest VmHWM seen, in KiB.
    var peakKiB: Int { lock.withLock { value } }

    init(pid: Int32) {
        Thread.detachNewThread { [self] in
            while let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
                for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                    let kib = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
                    lock.withLock { value = max(value, kib) }
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }
}
