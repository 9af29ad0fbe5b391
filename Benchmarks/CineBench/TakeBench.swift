// CineBench take: the take on a machine that cannot keep up — graphs/cinematic.conf at 1080p30 run
// live by the release binary (1) on both cores with the viewfinder open in headless Chromium and
// a busy loop spinning on one core, and (2) confined to one core (taskset). Reports what the asset
// kept of what the camera produced, whether the camera kept real time, how many frames' analysis
// was carried forward (and by which nodes), focus on every frame, and the viewer's frame rate.
// BENCH_TAKE_SECONDS sets the length (default 60); BENCH_TAKE_SET adds `--set` overrides (space
// separated, e.g. "faces.types=[humanFace,humanBody]" for the take with bodies on).
import CineGStreamer
import Foundation

func runTakeBench() throws {
    let seconds = Int(ProcessInfo.processInfo.environment["BENCH_TAKE_SECONDS"] ?? "") ?? 60
    print("\ntake under load — graphs/cinematic.conf, synthetic 2×1920×1080 at 30 fps, \(seconds) s")
    let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cinegraph").path
    guard FileManager.default.isExecutableFile(atPath: bin) else {
        throw BenchError("build cinegraph first (make bench does): \(bin) is missing")
    }
    try takeRun(bin: bin, seconds: seconds, name: "2 cores, viewer in Chromium, busy loop on one core", oneCore: false)
    try takeRun(bin: bin, seconds: seconds, name: "1 core (taskset), no viewer", oneCore: true)
}

private func takeRun(bin: String, seconds: Int, name: String, oneCore: Bool) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-take-\(getpid())").path
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let port = 8397
    var helpers: [Process] = []
    defer { for h in helpers where h.isRunning { h.terminate(); h.waitUntilExit() } }
    if !oneCore {
        // A busy loop pinned to core 1 (a compile, a video call's encoder).
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        busy.arguments = ["-c", "1", "/bin/sh", "-c", "while :; do :; done"]
        try busy.run()
        helpers.append(busy)
    }
    let p = Process()
    if oneCore {
        p.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        p.arguments = ["-c", "0", bin]
    } else {
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = []
    }
    p.arguments! += ["run", "graphs/cinematic.conf", "--duration", "\(seconds)s", "--quiet",
                     "--set", "asset.path=\(dir)/take.cine.mkv", "--set", "meta.path=\(dir)/take.jsonl",
                     "--set", "viewfinder.port=\(port)"]
    for o in (ProcessInfo.processInfo.environment["BENCH_TAKE_SET"] ?? "").split(separator: " ") { p.arguments! += ["--set", String(o)] }
    let errors = Pipe()
    p.standardError = errors
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    let peak = PeakMemoryWatcher(pid: p.processIdentifier)
    if !oneCore {
        // The viewer: headless Chromium showing the viewfinder page, as a user's browser would.
        Thread.sleep(forTimeInterval: 3)
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        browser.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
                             "--user-data-dir=\(dir)/chromium", "http://127.0.0.1:\(port)/"]
        browser.standardError = FileHandle.nullDevice
        browser.standardOutput = FileHandle.nullDevice
        try browser.run()
        helpers.append(browser)
    }
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("the live graph failed:\n\(text)") }
    if let table = text.range(of: "Summary of") { print(text[table.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)) }
    // What the camera produced and what the take kept.
    func column(_ node: String, _ index: Int) -> Int? {
        text.split(separator: "\n").first { $0.split(separator: " ").first == Substring(node) }
            .flatMap { line in Int(line.split(separator: " ")[index]) }
    }
    let captured = column("camera", 3) ?? 0
    let viewed = column("viewfinder", 3) ?? 0
    let frames = try MediaProbe.inspect(path: "\(dir)/take.cine.mkv", timeout: 60).frameCount
    let lines = (try? String(contentsOfFile: "\(dir)/take.jsonl", encoding: .utf8))?.split(separator: "\n") ?? []
    var carriedBy: [String: Int] = [:]
    var carriedFrames = 0, withFocus = 0
    for line in lines {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
        if object["focus"] != nil { withFocus += 1 }
        if let carried = object["carried"] as? [String] {
            carriedFrames += 1
            for c in carried { carriedBy[c, default: 0] += 1 }
        }
    }
    report("\(name): asset frames of the camera's", String(format: "%d of %d (%.2f %%)", frames, captured, 100 * Double(frames) / Double(max(1, captured))))
    report("\(name): camera kept real time", String(format: "%d of %d frames (%.1f %%)", captured, seconds * 30, 100 * Double(captured) / Double(seconds * 30)))
    report("\(name): frames with analysis carried forward", "\(carriedFrames) of \(lines.count) (" + carriedBy.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
    report("\(name): frames with focus", "\(withFocus) of \(lines.count)")
    report("\(name): peak resident memory", String(format: "%.0f MB", Double(peak.peakKiB) / 1024))
    if !oneCore { report("\(name): viewer", String(format: "%.1f fps", Double(viewed) / Double(seconds))) }
}
