// FocusBench: the focus engine's decision cost per frame with 20 candidates (aim < 0.2 ms),
// live and with a 0.5 s lookahead, plus scene monitoring's measurement of a 1080p frame.
// `CineBench focus` runs this section alone.
import CineGraph
import CineMedia
import CineVision
import Foundation

/// Twenty subjects (a body each, every other one with a face, half of them turning away from time to
/// time) drifting across the frame at different depths: 20–30 detections per frame.
private func benchCandidates(frame i: Int) -> Detections {
    var out: Detections = []
    for k in 0..<20 {
        let t = Double(i) / 30
        let x = (0.05 * Double(k) + 0.02 * t).truncatingRemainder(dividingBy: 0.9)
        let d = 10 + 3 * Double(k) + sin(t + Double(k))
        out.append(
            Detection(
                id: 2 * k + 2, groupID: k + 1, type: .humanBody,
                bounds: NormalizedRect(x: x, y: 0.3, width: 0.1, height: 0.6), disparity: d))
        if k % 2 == 0 && Int(t + Double(k)) % 5 != 0 {
            out.append(
                Detection(
                    id: 2 * k + 1, groupID: k + 1, type: .humanFace,
                    bounds: NormalizedRect(x: x + 0.03, y: 0.3, width: 0.04, height: 0.08), disparity: d))
        }
    }
    return out
}

/// Runs the focus section of `make bench`.
func runFocusBench() throws {
    print("\nfocus engine — 20 candidate subjects per frame (20–30 detections), 30 fps, aim < 0.2 ms per frame")
    let frames = Int(ProcessInfo.processInfo.environment["BENCH_FOCUS_FRAMES"] ?? "") ?? 9000
    let inputs = (0..<frames).map { benchCandidates(frame: $0) }
    for lookahead in [0.0, 0.5] {
        var c = FocusEngineConfiguration()
        c.lookahead = lookahead
        c.recordsFrames = false  // as the node runs it
        var best = Double.infinity
        var decisions = 0
        for _ in 0..<3 {
            var engine = FocusEngine(configuration: c)
            var emitted = 0
            let t = try time {
                for (i, dets) in inputs.enumerated() {
                    emitted +=
                        engine.ingest(time: Timestamp(frame: i, fps: 30), detections: dets, sceneDisparity: 10).count
                    if i % 900 == 450 { try engine.focus(onDetection: 2, strong: i % 1800 == 450) }
                }
            }
            guard emitted > 0 else { throw BenchError("the engine emitted nothing") }
            decisions = engine.script.decisions.count
            best = min(best, t)
        }
        report(
            "focus engine per frame, lookahead \(lookahead) s (\(frames) frames, \(decisions) decisions)",
            String(format: "%.4f ms", best * 1000 / Double(frames)))
    }
    let scene = SyntheticScene(SyntheticScene.Configuration(width: 1920, height: 1080, fps: 30, seed: 1))
    let l = Image(width: 1920, height: 1080, format: .i420), r = Image(width: 1920, height: 1080, format: .i420)
    let truth = Image(width: 1920, height: 1080, format: .float32)
    scene.render(frame: 150, left: l, right: r, groundTruth: truth)
    let map = DisparityMap(values: truth, referenceWidth: 1920, referenceHeight: 1080)
    var monitor = SceneMonitor()
    let n = 200
    let t = time {
        for i in 0..<n {
            _ = monitor.update(time: Timestamp(frame: i, fps: 30), SceneMeasurement.measure(luma: l, disparity: map))
        }
    }
    report(
        "scene monitor per 1080p frame (luma, noise, disparity confidence)",
        String(format: "%.3f ms", t * 1000 / Double(n)))

    // Tracking focus at a point: one region growth per frame, on the full-resolution map.
    if let subject = scene.subjects(at: 5).first {
        var tracker = SalientObjectTracker()
        let centre = NormalizedPoint(
            x: subject.body.x + subject.body.width / 2, y: subject.body.y + subject.body.height / 2)
        if tracker.start(at: centre, disparity: map, luma: l) != nil {
            let m = 30
            let t = time { for _ in 0..<m { _ = tracker.update(disparity: map, luma: l) } }
            report("salient object tracking per frame (1920x1080 map)", String(format: "%.2f ms", t * 1000 / Double(m)))
        } else {
            report("salient object tracking per frame (1920x1080 map)", "no object found at \(centre)")
        }
    }
}
