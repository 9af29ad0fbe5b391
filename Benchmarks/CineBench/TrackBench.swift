// CineBench track: tap-to-track on the synthetic camera's props (a ball rolled along the
// sideboard, a cup carried across) — how often the box overlaps the truth, how soon a full
// occlusion is reported, the cost per object — beside OpenCV's MIL tracker on the same frames.
import CineGStreamer
import CineMedia
import CineVision
import Dispatch
import Foundation

/// One tracked prop's score over a take.
struct PropTrackScore {
    /// Frames with the prop at least 75 % in view, and those where the box overlaps the truth (IoU ≥ 0.5).
    var visible = 0, overlapping = 0
    /// Full occlusions (the prop under 2 % in view after being tracked), and those reported lost within 5 frames.
    var occlusions = 0, reportedInTime = 0
    /// Frames the prop was fully hidden and the tracker still said it was tracking, after the 5-frame grace.
    var falseTracking = 0
    /// The tap's box against the truth.
    var tapIoU: [Double] = []

    mutating func add(_ o: PropTrackScore) {
        visible += o.visible; overlapping += o.overlapping; occlusions += o.occlusions
        reportedInTime += o.reportedInTime; falseTracking += o.falseTracking; tapIoU += o.tapIoU
    }
}

/// Scores one tracker run against the truth: `boxes[i]`/`lost[i]` are the tracker's answer at
/// frame `start + 1 + i`.
func scoreTrack(truth: [SyntheticProp?], start: Int, boxes: [NormalizedRect], lost: [Bool]) -> PropTrackScore {
    var s = PropTrackScore()
    var hiddenSince: Int?
    var reported = false
    for (i, box) in boxes.enumerated() {
        let f = start + 1 + i
        let seen = truth[f]?.visibleFraction ?? 0
        if seen >= 0.75, let t = truth[f] {
            s.visible += 1
            if !lost[i] && ObjectTracker.iou(box, t.bounds) >= 0.5 { s.overlapping += 1 }
        }
        if seen < 0.02 {
            if hiddenSince == nil {
                // A new occlusion counts only if the tracker was following the prop just before.
                if i > 0 && !lost[i - 1] {
                    hiddenSince = f
                    reported = false
                    s.occlusions += 1
                } else {
                    hiddenSince = -1
                }
            }
            if let h = hiddenSince, h >= 0 {
                if lost[i] && !reported {
                    reported = true
                    if f - h <= 5 { s.reportedInTime += 1 }
                }
                if !lost[i] && f - h > 5 { s.falseTracking += 1 }
            }
        } else {
            hiddenSince = nil
        }
    }
    return s
}

/// The planes of an I420 image, row by row without padding (the layout `COLOR_YUV2BGR_I420` reads).
func i420Bytes(_ image: Image) -> Data {
    var d = Data(capacity: image.width * image.height * 3 / 2)
    for p in 0..<3 {
        let plane = image.plane(p)
        for y in 0..<plane.height { d.append(UnsafeBufferPointer(start: plane.row(y, as: UInt8.self), count: plane.width)) }
    }
    return d
}

func runTrackBench() throws {
    let w = 1280, h = 720, frames = 600
    let seeds: [UInt64] = [1, 2, 3, 4, 5]
    print("\ntap-to-track — synthetic props (a ball rolled along the sideboard, a cup carried by a subject), "
          + "\(w)×\(h), \(frames) frames, seeds \(seeds.map(String.init).joined(separator: ",")); "
          + "a tap at the prop's true centre on the first frame it is fully in view")
    let tapped = ProcessInfo.processInfo.environment["TRACK_FROM"] == "tap"
    print(tapped ? "  each prop followed from the box the tap found (TRACK_FROM=tap)"
                 : "  each prop followed from its true box (a drag; TRACK_FROM=tap starts from the box a tap finds)")
    var totals: [SyntheticProp.Kind: PropTrackScore] = [:]
    var tapScores: [SyntheticProp.Kind: PropTrackScore] = [:]
    var costs: [Double] = []
    var peerRuns: [(seed: UInt64, kind: SyntheticProp.Kind, start: Int, box: NormalizedRect)] = []
    var truths: [UInt64: [SyntheticProp.Kind: [SyntheticProp?]]] = [:]
    let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-bench-track-\(getpid())").path
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: tmp) }
    for seed in seeds {
        var c = SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: seed)
        c.props = true
        let scene = SyntheticScene(c)
        var truth: [SyntheticProp.Kind: [SyntheticProp?]] = [:]
        for f in 0..<frames {
            let props = scene.props(at: scene.time(ofFrame: f))
            for k in SyntheticProp.Kind.allCases { truth[k, default: []].append(props.first { $0.kind == k }) }
        }
        truths[seed] = truth
        // Raw I420 frames for the peer.
        let rawPath = "\(tmp)/s\(seed).yuv"
        guard FileManager.default.createFile(atPath: rawPath, contents: nil), let raw = FileHandle(forWritingAtPath: rawPath) else {
            throw BenchError("cannot write \(rawPath)")
        }
        var trackers: [SyntheticProp.Kind: (start: Int, tracker: AppearanceTracker, boxes: [NormalizedRect], lost: [Bool])] = [:]
        var failedTaps: [SyntheticProp.Kind] = []
        for f in 0..<frames {
            let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
            scene.render(frame: f, left: left, right: right, groundTruth: nil)
            raw.write(i420Bytes(left))
            for k in SyntheticProp.Kind.allCases {
                if var run = trackers[k] {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    let o = run.tracker.update(left)
                    costs.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                    if ProcessInfo.processInfo.environment["TRACK_DEBUG"] == "\(seed)", let t = truth[k]![f] {
                        print(String(format: "  %@ %d seen %.2f iou %.2f score %.2f %@ w %.3f/%.3f h %.3f/%.3f", k.rawValue, f,
                                     t.visibleFraction, ObjectTracker.iou(o.bounds, t.bounds), o.score, "\(o.status)",
                                     o.bounds.width, t.bounds.width, o.bounds.height, t.bounds.height))
                    }
                    run.boxes.append(o.bounds)
                    if case .lost = o.status { run.lost.append(true) } else { run.lost.append(false) }
                    trackers[k] = run
                } else if !failedTaps.contains(k), let t = truth[k]![f], t.visibleFraction >= 0.95, f > 0 {
                    // A drag: the box is the truth's; a tap: the finder's box around the centre.
                    let centre = NormalizedPoint(x: t.bounds.x + t.bounds.width / 2, y: t.bounds.y + t.bounds.height / 2)
                    let found = TappedObjectFinder().find(at: centre, in: left)
                    var s = PropTrackScore()
                    s.tapIoU = [found.map { ObjectTracker.iou($0.bounds, t.bounds) } ?? 0]
                    tapScores[k, default: PropTrackScore()].add(s)
                    let start = tapped ? found?.bounds : t.bounds
                    guard let start, let tracker = AppearanceTracker(image: left, bounds: start) else {
                        failedTaps.append(k)
                        print("  seed \(seed) \(k.rawValue): the \(tapped ? "tap" : "drag") at frame \(f) found nothing to follow")
                        continue
                    }
                    trackers[k] = (f, tracker, [], [])
                    peerRuns.append((seed, k, f, start))
                }
            }
            let pictures = ProcessInfo.processInfo.environment["TRACK_PICTURES"]
            if let dir = pictures, seed == 1, [60, 150, 200, 330].contains(f) {
                // The tracker's box (yellow, grey when lost) and the truth (white dashed).
                let shown = left.copy()
                for k in SyntheticProp.Kind.allCases {
                    if let t = truth[k]![f] { shown.strokeRectangle(t.bounds, color: .white, thickness: 2, dash: 6) }
                    if let run = trackers[k], let b = run.boxes.last {
                        shown.strokeRectangle(b, color: run.lost.last == true ? VideoColor(y: 128, u: 128, v: 128) : .focusYellow)
                    }
                }
                try ImageFile.write(shown, to: "\(dir)/track-\(f).png")
            }
        }
        try raw.close()
        for (k, run) in trackers.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let s = scoreTrack(truth: truth[k]!, start: run.start, boxes: run.boxes, lost: run.lost)
            totals[k, default: PropTrackScore()].add(s)
            print(String(format: "  seed %d %@: from frame %d, IoU ≥ 0.5 on %d of %d frames in view (%.1f %%); "
                         + "occlusions %d, reported lost within 5 frames %d; frames tracking a hidden prop %d",
                         Int(seed), k.rawValue, run.start, s.overlapping, s.visible,
                         100 * Double(s.overlapping) / Double(max(1, s.visible)), s.occlusions, s.reportedInTime,
                         s.falseTracking))
        }
    }
    var all = PropTrackScore()
    for k in SyntheticProp.Kind.allCases {
        guard let s = totals[k] else { continue }
        all.add(s)
        report("tap-to-track \(k.rawValue): frames in view with IoU ≥ 0.5 (target ≥ 90 %)",
               String(format: "%.1f %% (%d / %d)", 100 * Double(s.overlapping) / Double(max(1, s.visible)), s.overlapping, s.visible))
    }
    report("tap-to-track: frames in view with IoU ≥ 0.5, all props (target ≥ 90 %)",
           String(format: "%.1f %% (%d / %d)", 100 * Double(all.overlapping) / Double(max(1, all.visible)), all.overlapping, all.visible))
    report("tap-to-track: full occlusions reported lost within 5 frames",
           "\(all.reportedInTime) / \(all.occlusions); frames tracking a hidden prop after 5: \(all.falseTracking)")
    for k in SyntheticProp.Kind.allCases {
        let ious = tapScores[k]?.tapIoU ?? []
        report("tap-to-track \(k.rawValue): a tap at its centre, one lens — the box found against the truth",
               String(format: "median IoU %.2f, ≥ 0.5 on %d of %d", median(ious), ious.filter { $0 >= 0.5 }.count, ious.count))
    }
    guard !costs.isEmpty else { throw BenchError("no prop was tracked") }
    report("tap-to-track: ms per frame per object, 720p (target ≤ 3)",
           String(format: "median %.2f ms, 95th %.2f ms", median(costs), costs.sorted()[Int(Double(costs.count) * 0.95)]))

    // The peer: OpenCV's MIL tracker (opencv-python, no model file) from the same boxes on the same frames.
    let python = try benchPython()
    let script = "\(tmp)/mil.py"
    try """
    import sys, time, numpy as np, cv2
    path, w, h, start, x, y, bw, bh, n = sys.argv[1], *map(int, sys.argv[2:5]), *map(float, sys.argv[5:9]), int(sys.argv[9])
    size = w * h * 3 // 2
    f = open(path, 'rb'); f.seek(start * size)
    def frame():
        b = f.read(size)
        return None if len(b) < size else cv2.cvtColor(np.frombuffer(b, np.uint8).reshape(h * 3 // 2, w), cv2.COLOR_YUV2BGR_I420)
    t = cv2.TrackerMIL_create(); t.init(frame(), (int(x * w), int(y * h), int(bw * w), int(bh * h)))
    cost = 0.0
    for i in range(n):
        img = frame()
        if img is None: break
        t0 = time.perf_counter(); ok, r = t.update(img); cost += time.perf_counter() - t0
        print('%d %f %f %f %f' % (ok, r[0] / w, r[1] / h, r[2] / w, r[3] / h))
    print('cost', cost / max(1, n))
    """.write(toFile: script, atomically: true, encoding: .utf8)
    var peer = PropTrackScore()
    var peerCosts: [Double] = []
    for run in peerRuns where run.seed <= 3 {
        let out = try capture("\(python) \(script) \(tmp)/s\(run.seed).yuv \(w) \(h) \(run.start) \(run.box.x) \(run.box.y) "
                              + "\(run.box.width) \(run.box.height) \(frames - run.start - 1)")
        var boxes: [NormalizedRect] = [], lost: [Bool] = []
        for line in out.split(separator: "\n") {
            let p = line.split(separator: " ")
            if p.first == "cost" { peerCosts.append(Double(p[1])! * 1000); continue }
            guard p.count == 5 else { continue }
            lost.append(p[0] == "0")
            boxes.append(NormalizedRect(x: Double(p[1])!, y: Double(p[2])!, width: Double(p[3])!, height: Double(p[4])!))
        }
        peer.add(scoreTrack(truth: truths[run.seed]![run.kind]!, start: run.start, boxes: boxes, lost: lost))
    }
    report("peer: OpenCV TrackerMIL, seeds 1–3, frames in view with IoU ≥ 0.5",
           String(format: "%.1f %% (%d / %d); occlusions reported %d / %d; %.1f ms a frame",
                  100 * Double(peer.overlapping) / Double(max(1, peer.visible)), peer.overlapping, peer.visible,
                  peer.reportedInTime, peer.occlusions, median(peerCosts)))
}
