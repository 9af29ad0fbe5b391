// CineBench: `make bench` — the runtime, the synthetic camera and the GStreamer bridge,
// each beside a peer measured in the same run (gst-launch-1.0 doing the same work).
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Dispatch
import Foundation
import Synchronization

/// The closing table of a full run: the whole graph's figures first (live fps and drops, CPU,
/// memory, latency, render speed), then each issue's headline beside its peer.
func printSummaryTable() {
    let lines = reported.withLock { $0 }
    let wanted: [(title: String, match: String)] = [
        ("whole graph, 1080p live", "asset frames kept"), ("", "CPU: both cores"), ("", "peak resident memory"),
        ("", "capture → WebSocket send"), ("", "frames captured / dropped"),
        ("render", "render 1080p, bokeh standard"), ("", "peer: gst-launch decode + x264"),
        ("disparity vs OpenCV SGBM", "slowest speed-up vs SGBM_3WAY, 1 thread, 3 paths"),
        ("", "pairs with bad-2.0"), ("", "disparity live default"),
        ("detector vs OpenCV", "lbpcascade_frontalface_improved.xml 640x480 1T"),
        ("", "haarcascade_frontalface_default.xml 640x480 1T"), ("", "live 640x360 faces, node defaults"),
        ("stabilizer vs vid.stab", "speed ratio cinegraph / vid.stab"), ("", "] cinegraph cinematic"),
        ("", "] vid.stab smoothing"),
        ("viewfinder", "preview JPEG q75 1080p → 960"), ("", "peer: gst videoscale+jpegenc"),
        ("take under load", "asset frames of the camera's"), ("", "camera kept real time"), ("", "frames with analysis carried"),
        ("runtime", "runtime: µs per packet per edge"), ("", "ingest ratio"), ("", "egress ratio"),
    ]
    print("\nsummary — the whole graph and each stage beside its peer (this run)")
    var section = ""
    for (title, match) in wanted {
        if !title.isEmpty { section = title }
        for line in lines where line.name.contains(match) {
            print(String(format: "%-26@ %-58@ %@", section as NSString, line.name as NSString, line.value))
        }
    }
}

/// The sections of `make bench`, in the order a full run takes them; `CineBench NAME` runs one.
let benchSections: [(name: String, run: @Sendable () throws -> Void)] = [
    ("core", runCoreBench), ("disparity", runDisparityBench), ("bokeh", runBokehBench),
    ("detector", runDetectorBench), ("tools", runToolsBench), ("stabilizer", runStabilizerBench),
    ("focus", runFocusBench), ("render", runRenderBench), ("live", runLiveBench), ("viewfinder", runViewfinderBench),
    ("latency", runLatencyBench), ("mono", runMonoBench), ("srt", runSRTBench), ("edit", runEditBench), ("depth", runDepthBench), ("calibrate", runCalibrateBench),
    ("take", runTakeBench), ("track", runTrackBench), ("talk", runTalkBench), ("repair", runRepairBench),
]

@main
struct CineBench {
    static func main() throws {
        try GStreamer.initialize()
        let arguments = Array(CommandLine.arguments.dropFirst())
        // `CineBench tensors DIR PHOTO...`: the models' tensors for Benchmarks/detector/tensors.py.
        if arguments.first == "tensors" { return try runTensorDump(Array(arguments.dropFirst())) }
        // `CineBench mjpeg`: calibrate's side-by-side MJPEG measure alone.
        if arguments.first == "mjpeg" { return try runMJPEGBench() }
        if arguments.first == "talk-take" {
            do { try runTalkTakeBench() } catch {
                print("CineBench talk-take: \(error)")
                exit(1)
            }
            return
        }
        if let name = arguments.first {
            guard let section = benchSections.first(where: { $0.name == name }) else {
                throw BenchError("no section '\(name)'; sections: \(benchSections.map(\.name).joined(separator: ", ")), tensors")
            }
            return try section.run()
        }
        // A section that cannot run is reported and the rest still run; the exit status says so.
        var failed: [String] = []
        for section in benchSections {
            do { try section.run() } catch {
                print("\n\(section.name): could not run: \(error)")
                failed.append(section.name)
            }
        }
        printSummaryTable()
        if !failed.isEmpty {
            print("\nsections that could not run: \(failed.joined(separator: ", "))")
            exit(1)
        }
    }
}

/// The runtime, the synthetic camera and the GStreamer bridge, each beside gst-launch-1.0 doing
/// the same work.
func runCoreBench() throws {
    let frames = Int(ProcessInfo.processInfo.environment["BENCH_FRAMES"] ?? "") ?? 300
    print("cinegraph bench — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(frames) frames at 1920x1080\n")

    // 1. Runtime overhead per packet per edge: a source, a chain of pass-through nodes, a sink.
    let registry = NodeRegistry()
    registry.register(CountSource.self)
    registry.register(PassThrough.self)
    registry.register(Discard.self)
    for (stages, count) in [(1, 200_000), (4, 100_000)] {
        var text = "nodes:\n  n0: { kind: bench-source, count: \(count) }\n"
        for s in 1...stages { text += "  n\(s): { kind: bench-pass, input: n\(s - 1) }\n" }
        text += "  sink: { kind: bench-sink, input: n\(stages) }\n"
        let g = try Graph.parse(text, registry: registry)
        let edges = stages + 1
        let t = try time { try GraphRunner(graph: g).run() }
        report("runtime: µs per packet per edge (\(edges) edges)", String(format: "%.2f µs", t * 1e6 / Double(count * edges)))
    }

    // 2. Synthetic camera at 1080p: both views, with and without ground truth, over 4 s with
    // people in view; CPU as well as wall time (a camera's cost is its CPU). The set (wall,
    // furniture) is painted once and copied; painting it every frame is the same bytes.
    let pool = ImagePool()
    for (cached, truth) in [(true, false), (true, true), (false, false)] {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 1920, height: 1080, fps: 30, seed: 1), cachingTheSet: cached)
        let frames = 150..<270
        var cpu = 0.0
        let t = time {
            let c0 = processCPUSeconds()
            for i in frames {
                let l = pool.makeImage(width: 1920, height: 1080, format: .i420)
                let r = pool.makeImage(width: 1920, height: 1080, format: .i420)
                let g = truth ? pool.makeImage(width: 1920, height: 1080, format: .float32) : nil
                scene.render(frame: i, left: l, right: r, groundTruth: g)
            }
            cpu = processCPUSeconds() - c0
        }
        let label = "synthetic stereo 1080p\(truth ? " + ground truth" : "")\(cached ? "" : ", set painted every frame")"
        report("\(label): CPU ms/frame (target ≤ 5)",
               String(format: "%.2f ms CPU, %.2f ms wall (%.0f fps)", cpu * 1000 / Double(frames.count),
                      t * 1000 / Double(frames.count), Double(frames.count) / t))
    }

    // 3. Ingest: appsink into pooled images vs gst-launch to fakesink, same source.
    let src = "videotestsrc num-buffers=\(frames) pattern=snow ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
    let peerIngest = try shell("gst-launch-1.0 -q \(src) ! fakesink sync=false")
    let ours = try time {
        let p = try Pipeline("\(src) ! appsink name=sink sync=false max-buffers=4")
        let reader = try AppSinkReader(pipeline: p, name: "sink", pool: ImagePool())
        try p.play()
        var n = 0
        loop: while true {
            switch try reader.next(timeout: 5) {
            case .frame: n += 1
            case .endOfStream: break loop
            case .timeout: throw BenchError("ingest stalled after \(n) frames")
            }
        }
        p.stop()
    }
    report("ingest 1080p I420: cinegraph appsink fps", String(format: "%.0f fps", Double(frames) / ours))
    report("ingest 1080p I420: gst-launch fakesink fps", String(format: "%.0f fps", Double(frames) / peerIngest))
    report("ingest ratio (cinegraph / gst-launch, aim ≥ 0.9)", String(format: "%.2f", peerIngest / ours))

    // 4. Egress: appsrc + x264 to fragmented MP4 vs gst-launch running the very same encoder,
    // parser and muxer settings (taken from the recorder's own pipeline description).
    let tmp = FileManager.default.temporaryDirectory.path
    var options = MovieRecorder.Options()
    options.speedPreset = "veryfast"
    let probe = try MovieRecorder(path: "\(tmp)/bench-probe.mp4", width: 1920, height: 1080, fps: 30,
                                  format: .i420, options: options)
    let chain = probe.pipelineDescription.split(separator: "!", maxSplits: 1)[1]
        .replacingOccurrences(of: "bench-probe.mp4", with: "bench-peer.mp4")
    try? probe.finish(timeout: 5)
    // A queue gives the peer the same two streaming threads (source, encoder) that ours has.
    let peerEgress = try shell("gst-launch-1.0 -q \(src) ! queue !\(chain)")
    print("  peer: gst-launch-1.0 \(src) ! queue !\(chain)")
    // Ours pays both bridge crossings: videotestsrc → appsink → pooled Image → appsrc → x264.
    var written = 0
    let egress = try time {
        let grab = try Pipeline("\(src) ! appsink name=sink sync=false max-buffers=4")
        let reader = try AppSinkReader(pipeline: grab, name: "sink", pool: ImagePool())
        try grab.play()
        let rec = try MovieRecorder(path: "\(tmp)/bench-ours.mp4", width: 1920, height: 1080, fps: 30, format: .i420,
                                    options: options)
        while case .frame(let image, let t) = try reader.next(timeout: 5) {
            try rec.append(image, at: t)
            written += 1
        }
        grab.stop()
        try rec.finish(timeout: 60)
    }
    report("egress 1080p x264 veryfast: cinegraph appsink→appsrc fps", String(format: "%.1f fps", Double(written) / egress))
    report("egress 1080p x264 veryfast: gst-launch fps", String(format: "%.1f fps", Double(frames) / peerEgress))
    report("egress ratio (cinegraph / gst-launch, aim ≥ 0.9)", String(format: "%.2f", peerEgress / egress * Double(written) / Double(frames)))
    let info = try MediaProbe.inspect(path: "\(tmp)/bench-ours.mp4")
    report("egress check: frames in our file", "\(info.frameCount) of \(written)")
}
