// CineBench mono: one-lens cinematic mode — the person matte's cost in process, and the virtual
// webcam graph as a whole process (frames sent, drops, CPU cores).
import CineMedia
import CineVision
import Foundation

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
    let last = text.split(separator: "\n").last.map(String.init) ?? ""
    var v: [String: String] = [:]
    for kv in last.split(separator: " ") {
        let p = kv.split(separator: "=", maxSplits: 1)
        if p.count == 2 { v[String(p[0])] = String(p[1]) }
    }
    report("virtual webcam \(seconds) s: frames sent / camera frames (aim: all)", "\(v["sent_frames"] ?? "?") / \(v["camera_frames"] ?? "?")")
    report("virtual webcam: packets dropped on live edges (aim 0)", v["dropped"] ?? "?")
    report("virtual webcam: CPU, cores on average (aim <= 1; synthetic camera included)", v["cpu_cores"] ?? "?")
}
