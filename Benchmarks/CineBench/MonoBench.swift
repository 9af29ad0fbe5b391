// CineBench mono: one-lens cinematic mode — the person matte's cost in process, the virtual
// webcam graph as a whole process (frames sent, drops, CPU cores) beside the loop the open
// background-blur tools run (MediaPipe's Python selfie segmentation + an OpenCV blur composite),
// capture → virtual camera latency in process, and the edge on a real portrait (flicker, halo, bleed).
import CineTestSupport
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Dispatch
import Foundation
import Synchronization

/// Latencies (ms) from capture to the frame's arrival at the virtual camera.
private let virtualCameraLatencies = Mutex<[Double]>([])

/// Takes what the virtual camera takes (the rendered frame) and notes how long after its capture
/// it arrived.
struct LatencyProbe: Node {
    static let kind = "bench-latency-probe"
    static let summary = "Notes each frame's capture → arrival latency (benchmarks)."
    @Input("Frames") var video: Image
    mutating func process(_ ctx: inout NodeContext) throws {
        let now = DispatchTime.now().uptimeNanoseconds
        guard let captured = captureInstants.withLock({ $0.removeValue(forKey: ctx.timestamp.nanoseconds) }) else { return }
        virtualCameraLatencies.withLock { $0.append(Double(Int64(now) - Int64(captured)) / 1e6) }
    }
}

private func fields(_ line: String) -> [String: String] {
    var v: [String: String] = [:]
    for kv in line.split(separator: " ") {
        let p = kv.split(separator: "=", maxSplits: 1)
        if p.count == 2 { v[String(p[0])] = String(p[1]) }
    }
    return v
}

func runMonoBench() throws {
    print("\nmono — one lens: person matte, mono-depth, the virtual webcam (1280x720)")
    let matte = try PersonMatte()
    let scene = SyntheticScene(SyntheticScene.Configuration(width: 1280, height: 720, fps: 30, seed: 1))
    let l = Image(width: 1280, height: 720, format: .i420), r = Image(width: 1280, height: 720, format: .i420)
    scene.render(frame: 150, left: l, right: r, groundTruth: nil)
    let out = Image(width: matte.width, height: matte.height, format: .gray8)
    var samples: [Double] = []
    for _ in 0..<60 { samples.append(try time { _ = try matte.estimate(l, into: out) } * 1000) }
    samples.sort()
    report("matte: 1280x720 frame -> 256x144 matte, 1 thread (aim <= 3 ms)", String(format: "%.2f ms median", samples[30]))
    var depth = MonoDepth()
    let faces: Detections = [Detection(id: 1, type: .humanFace, bounds: NormalizedRect(x: 0.4, y: 0.1, width: 0.1, height: 0.18))]
    let t = time { for _ in 0..<60 { _ = depth.estimate(matte: out, detections: faces, referenceWidth: 1280, referenceHeight: 720) } }
    report("mono-depth: 480x270 map from the matte", String(format: "%.2f ms", t * 1000 / 60))

    let seconds = ProcessInfo.processInfo.environment["BENCH_MONO_SECONDS"] ?? "60"
    let text = try capture("Benchmarks/live/virtual-webcam.sh \(seconds)")
    let v = fields(text.split(separator: "\n").last.map(String.init) ?? "")
    report("virtual webcam \(seconds) s: frames sent / camera frames (aim: all)", "\(v["sent_frames"] ?? "?") / \(v["camera_frames"] ?? "?")")
    report("virtual webcam: packets dropped on live edges (aim 0)", v["dropped"] ?? "?")
    report("virtual webcam: CPU, cores on average (aim <= 1; synthetic camera included)", v["cpu_cores"] ?? "?")

    // The peer, same machine, same run: MediaPipe's Python selfie segmentation + an OpenCV blur.
    let python = try benchPython()
    let clip = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-mono-\(getpid()).mp4").path
    defer { try? FileManager.default.removeItem(atPath: clip) }
    _ = try capture(".build/release/cinegraph run graphs/record.conf --set camera.size=1280x720 --set camera.live=false --duration 5s --set movie.path=\(clip) --quiet")
    let peer = fields(try capture("\(python) Benchmarks/peers/selfie_peer.py \(clip) \(seconds) 2>/dev/null").split(separator: "\n").last.map(String.init) ?? "")
    report("peer: MediaPipe Python selfie segmentation + OpenCV blur, paced at 30 fps",
           "\(peer["peer_paced_fps"] ?? "?") fps on \(peer["peer_cpu_cores"] ?? "?") cores (\(peer["peer_frame_ms_p50"] ?? "?") ms a frame)")
    report("peer: unpaced, most frames per second", "\(peer["peer_max_fps"] ?? "?") fps")
    if let ours = Double(v["cpu_cores"] ?? ""), let theirs = Double(peer["peer_cpu_cores"] ?? "") {
        report("CPU at 30 fps, ours / peer (ours also renders the camera, focus and a lens bokeh)", String(format: "%.2f×", ours / theirs))
    }

    try runVirtualCameraLatency(seconds: min(Double(seconds) ?? 60, 30))
    try runPortraitEdge()
}

/// Capture → virtual camera, in process: graphs/virtual-webcam.conf with a camera that notes
/// each frame's capture instant, and a probe beside the virtual camera.
private func runVirtualCameraLatency(seconds: Double) throws {
    let registry = NodeRegistry.standard()
    registry.registerViewfinder()
    registry.register(CaptureTimedCamera.self)
    registry.register(LatencyProbe.self)
    let text = try String(contentsOfFile: "graphs/virtual-webcam.conf", encoding: .utf8)
        .replacingOccurrences(of: "kind: synthetic", with: "kind: bench-capture-camera")
        + "  probe:\n    kind: bench-latency-probe\n    video: bokeh.video\n"
    let graph = try Graph.parse(text, file: "graphs/virtual-webcam.conf", registry: registry,
                                overrides: ["camera.size=1280x720", "call.output=fakesink"], preflight: true)
    let runner = GraphRunner(graph: graph)
    runner.start()
    Thread.sleep(forTimeInterval: 2)
    virtualCameraLatencies.withLock { $0.removeAll() }
    Thread.sleep(forTimeInterval: seconds)
    let sorted = virtualCameraLatencies.withLock { $0 }.sorted()
    runner.drain()
    let summary = runner.wait()
    guard !sorted.isEmpty else { throw BenchError("no frame reached the virtual camera") }
    func at(_ p: Int) -> Double { sorted[min(sorted.count - 1, sorted.count * p / 100)] }
    let call = summary.nodes.first { $0.name == "call" }
    report("virtual webcam: capture → virtual camera p50 / p95 / max (aim p50 ≤ 50 ms)",
           String(format: "%.1f / %.1f / %.1f ms (%d frames)", at(50), at(95), sorted.last!, sorted.count))
    if let call { report("  + the virtual camera's own conversion and push, mean", String(format: "%.1f ms", call.meanMilliseconds)) }
}

/// A real portrait (Tests/PhotoFixtures/astronaut.jpg): flicker of the steadied matte under
/// camera noise, and what the render lets cross the edge beyond 2 px.
private func runPortraitEdge() throws {
    let portrait = try ImageFile.read("Tests/PhotoFixtures/astronaut.jpg", as: .rgba8)
    let person = try PersonMatte(file: PersonMatte.squareFile)
    var smoother = MatteSmoother(strength: 0.8)
    var raw: [Image] = [], steady: [Image] = []
    for k in 0..<40 {
        let m = try person.estimate(MatteEdgeQuality.noisy(portrait, amplitude: 4, seed: UInt64(k + 1)))
        raw.append(m.copy())
        smoother.smooth(m)
        steady.append(m)
    }
    report("portrait: matte flicker at the edge, raw / steadied (aim ≤ 1 %)",
           String(format: "%.2f %% / %.2f %%", MatteEdgeQuality.flicker(Array(raw.dropFirst(5))) * 100,
                  MatteEdgeQuality.flicker(Array(steady.dropFirst(5))) * 100))
    var depth = MonoDepth()
    let map = depth.estimate(matte: steady.last!, detections: [], referenceWidth: portrait.width, referenceHeight: portrait.height)
    let near = map.nearest ?? 0
    let renderer = BokehRenderer()
    let render = { (image: Image) in try renderer.render(image, disparity: map, focusDisparity: Double(near), fNumber: 2) }
    let subject = MatteEdgeQuality.subject(steady.last!, width: portrait.width, height: portrait.height)
    report("portrait f/2: subject colour on the background 2–12 px out (halo)",
           "\(try MatteEdgeQuality.leak(into: .outside, of: subject, frame: portrait, render: render))")
    report("portrait f/2: background colour in the subject 2–12 px in (bleed)",
           "\(try MatteEdgeQuality.leak(into: .inside, of: subject, frame: portrait, render: render))")
    // As the one-lens graphs render: the bokeh node redraws the map along the matte.
    let drawn = { (image: Image) in
        var refiner = MatteEdgeRefiner()
        return try renderer.render(image, disparity: refiner.refine(map, matte: steady.last!, guide: image),
                                   focusDisparity: Double(near), fNumber: 2)
    }
    report("portrait f/2, outline drawn by the matte: halo",
           "\(try MatteEdgeQuality.leak(into: .outside, of: subject, frame: portrait, render: drawn))")
    report("portrait f/2, outline drawn by the matte: bleed",
           "\(try MatteEdgeQuality.leak(into: .inside, of: subject, frame: portrait, render: drawn))")
}
