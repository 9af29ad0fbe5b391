// LatencyBench: capture-to-viewfinder latency on the whole cinematic graph (graphs/cinematic.conf
// as shipped, at 1920x1080 by default), in process, with a viewer pulling frames as fast as it
// can. The synthetic camera is swapped for one that notes each frame's capture instant (when it
// is due, as a camera exposes it — its own rendering then counts as latency); the viewfinder's
// send observer looks the instant up by timestamp.
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Dispatch
import Foundation
import Synchronization

/// Capture instants (uptime nanoseconds) by frame timestamp, shared by the camera and the observer.
let captureInstants = Mutex<[Int64: UInt64]>([:])

/// The synthetic stereo camera, paced like `synthetic`, noting each frame's capture instant.
struct CaptureTimedCamera: Node {
    static let kind = "bench-capture-camera"
    static let summary = "The synthetic stereo camera, noting each frame's capture instant (benchmarks)."
    @Output("Both views") var stereo: StereoFrame
    @Output("The left view, I420") var left: Image
    @Output("The right view, I420") var right: Image
    @Parameter(default: FrameSize(width: 1920, height: 1080), "Size of each view") var size: FrameSize
    @Parameter(default: 30, range: 1...240, "Frames per second") var fps: Double
    private var scene: SyntheticScene?
    private var index = 0
    var isLive: Bool { true }

    mutating func start(_ ctx: inout NodeContext) throws {
        scene = SyntheticScene(SyntheticScene.Configuration(width: size.width, height: size.height, fps: fps, seed: 1))
    }

    mutating func process(_ ctx: inout NodeContext) throws {
        if ctx.isStopRequested { return ctx.endOfStream() }
        let t = Timestamp(frame: index, fps: fps)
        ctx.pace(until: t)
        let due = DispatchTime.now().uptimeNanoseconds
        captureInstants.withLock { $0[t.nanoseconds] = due }
        let l = ctx.pool.makeImage(width: size.width, height: size.height, format: .i420)
        let r = ctx.pool.makeImage(width: size.width, height: size.height, format: .i420)
        scene!.render(frame: index, left: l, right: r, groundTruth: nil)
        ctx.timestamp = t
        stereo = StereoFrame(left: l, right: r)
        left = l
        right = r
        index += 1
    }
}

/// `CineBench latency`: BENCH_LATENCY_SECONDS (default 30) of graphs/cinematic.conf at
/// BENCH_LIVE_SIZE (default 1920x1080) with one viewer; p50 / p95 / p99 capture → send, drops.
/// BENCH_LATENCY_SET="node.key=value …" adds overrides (to try settings).
func runLatencyBench() throws {
    let seconds = Double(ProcessInfo.processInfo.environment["BENCH_LATENCY_SECONDS"] ?? "") ?? 30
    let size = ProcessInfo.processInfo.environment["BENCH_LIVE_SIZE"] ?? "1920x1080"
    print("\nlatency — graphs/cinematic.conf at 2×\(size), 30 fps, one viewer, \(Int(seconds)) s: capture → WebSocket send")
    let latencies = Mutex<[Double]>([])
    let measuring = Atomic<Bool>(false)
    let registry = NodeRegistry.standard()
    registry.registerViewfinder { frame, sent in
        guard measuring.load(ordering: .relaxed),
            let captured = captureInstants.withLock({ $0.removeValue(forKey: frame.timestamp.nanoseconds) })
        else { return }
        latencies.withLock { $0.append(Double(Int64(sent) - Int64(captured)) / 1e6) }
    }
    registry.register(CaptureTimedCamera.self)
    let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-latency-\(getpid())").path
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: tmp) }
    let text = try String(contentsOfFile: "graphs/cinematic.conf", encoding: .utf8)
        .replacingOccurrences(of: "kind: synthetic", with: "kind: bench-capture-camera")
    let graph = try Graph.parse(
        text, file: "graphs/cinematic.conf", registry: registry,
        overrides: [
            "camera.size=\(size)", "viewfinder.port=0", "asset.path=\(tmp)/latency.cine.mkv",
            "meta.path=\(tmp)/latency.jsonl",
        ] + (ProcessInfo.processInfo.environment["BENCH_LATENCY_SET"].map { $0.split(separator: " ").map(String.init) } ?? []),
        preflight: true)
    let runner = GraphRunner(graph: graph)
    let url = Mutex<String?>(nil)
    runner.subscribe { e in if e.name == "viewfinder-ready" { url.withLock { $0 = e.fields["url"] } } }
    runner.start()
    Thread.sleep(forTimeInterval: 3)  // warm up: encoder start, first frames
    guard let address = url.withLock({ $0 }), let port = URL(string: address)?.port else {
        runner.drain()
        _ = runner.wait()
        throw BenchError("the viewfinder did not start")
    }
    let viewer = BenchViewer(port: port)
    Thread.sleep(forTimeInterval: 1)
    let before = runner.summary()
    measuring.store(true, ordering: .relaxed)
    let f0 = viewer.frames.load(ordering: .relaxed)
    // Where the latency builds up: every 50 ms, how far each node's newest frame trails the camera's.
    var lags: [String: [Double]] = [:]
    let end = now() + seconds
    while now() < end {
        Thread.sleep(forTimeInterval: 0.05)
        let s = runner.summary()
        guard let head = s.nodes.first(where: { $0.name == "camera" })?.lastTimestamp else { continue }
        for n in s.nodes where n.name != "camera" {
            if let t = n.lastTimestamp { lags[n.name, default: []].append((head.seconds - t.seconds) * 1000) }
        }
    }
    measuring.store(false, ordering: .relaxed)
    let after = runner.summary()
    let received = viewer.frames.load(ordering: .relaxed) - f0
    viewer.stop()
    runner.drain()
    _ = runner.wait()

    let wall = after.wallSeconds - before.wallSeconds
    let captured = (after.nodes.first { $0.name == "camera" }?.processed ?? 0)
        - (before.nodes.first { $0.name == "camera" }?.processed ?? 0)
    report(
        "frames captured / dropped on live edges",
        String(format: "%d in %.1f s (%.1f fps), %d dropped", captured, wall, Double(captured) / wall,
               after.totalDrops - before.totalDrops))
    report("the viewer received (960×540 JPEG)", String(format: "%.1f fps", Double(received) / wall))
    for (name, values) in lags.sorted(by: { $0.key < $1.key }) {
        let v = values.sorted()
        report("  \(name) trails the camera: p50 / p99", String(format: "%.0f / %.0f ms", v[v.count / 2], v[min(v.count - 1, v.count * 99 / 100)]))
    }
    let sorted = latencies.withLock { $0 }.sorted()
    guard !sorted.isEmpty else { throw BenchError("no frame reached the viewer") }
    func at(_ p: Int) -> Double { sorted[min(sorted.count - 1, sorted.count * p / 100)] }
    report(
        "capture → WebSocket send: p50 / p95 / p99 / max (aim ≤ 100 / – / ≤ 150)",
        String(format: "%.1f / %.1f / %.1f / %.1f ms (%d frames)", at(50), at(95), at(99), sorted.last!, sorted.count))
}
