// ViewfinderBench: the web viewfinder's cost — the preview JPEG encode (ours vs GStreamer's
// jpegenc), the latency from frame capture to the WebSocket send, and a recording graph's frame
// rate with and without a connected viewer (the viewer must not cost the recording frames).
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Dispatch
import Foundation
import Synchronization

/// A live 720p camera whose timestamps are the capture instants on the uptime clock, so the
/// viewfinder's send observer gives capture-to-send latency directly.
struct UptimeCamera: Node {
    static let kind = "bench-uptime-camera"
    static let summary = "Synthetic frames stamped with the uptime clock at capture (benchmarks)."
    @Output("Frames (I420)") var video: Image
    @Parameter(default: 30, range: 1...120, "Frames per second") var fps: Double
    @Parameter(default: 1280, range: 64...3840, "Width") var width: Int
    @Parameter(default: 720, range: 64...2160, "Height") var height: Int
    private var scene: SyntheticScene?
    private var right: Image?
    private var index = 0
    var isLive: Bool { true }

    mutating func start(_ ctx: inout NodeContext) throws {
        scene = SyntheticScene(SyntheticScene.Configuration(width: width, height: height, fps: fps, seed: 1))
        right = Image(width: width, height: height, format: .i420)
    }

    mutating func process(_ ctx: inout NodeContext) throws {
        if ctx.isStopRequested { return ctx.endOfStream() }
        ctx.pace(until: Timestamp(frame: index, fps: fps))
        let left = ctx.pool.makeImage(width: width, height: height, format: .i420)
        scene!.render(frame: index % 600, left: left, right: right!, groundTruth: nil)
        ctx.timestamp = Timestamp(nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds))
        video = left
        index += 1
    }
}

/// A minimal WebSocket viewer of `/ws/video`: asks for the next frame as soon as it has one
/// (a fast display), counts frames and bytes. Runs on its own thread until stopped.
final class BenchViewer: @unchecked Sendable {
    private let stopFlag = Atomic<Bool>(false)
    let frames = Atomic<Int>(0)
    let bytes = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(port: Int) {
        Thread { [self] in
            defer { done.signal() }
            do { try run(port: port) } catch { print("  viewer: \(error)") }
        }.start()
    }

    func stop() {
        stopFlag.store(true, ordering: .relaxed)
        _ = done.wait(timeout: .now() + 5)
    }

    private func run(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard ok == 0 else { throw BenchError("cannot connect to the viewfinder") }
        try write(
            fd,
            Array(
                ("GET /ws/video HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .utf8))
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) { head += try read(fd, 1) }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw BenchError("no upgrade") }
        let next: [UInt8] =
            [0x81, 0x84, 1, 2, 3, 4] + zip(Array("next".utf8), [1, 2, 3, 4] as [UInt8]).map { $0 ^ $1 }
        while !stopFlag.load(ordering: .relaxed) {
            try write(fd, next)
            for _ in 0..<2 {  // the header (text), then the JPEG (binary)
                let h = try read(fd, 2)
                var length = Int(h[1] & 0x7F)
                if length == 126 {
                    length = try read(fd, 2).reduce(0) { $0 << 8 | Int($1) }
                } else if length == 127 {
                    length = try read(fd, 8).reduce(0) { $0 << 8 | Int($1) }
                }
                _ = try read(fd, length)
                if h[0] & 0x0F == 2 {
                    frames.add(1, ordering: .relaxed)
                    bytes.add(length, ordering: .relaxed)
                }
            }
        }
    }

    private func write(_ fd: Int32, _ data: [UInt8]) throws {
        guard data.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == data.count else {
            throw BenchError("send failed")
        }
    }

    private func read(_ fd: Int32, _ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            guard n > 0 else { throw BenchError("connection closed") }
            got += n
        }
        return out
    }
}

/// `CineBench viewfinder`: encode cost, capture-to-send latency, recording fps with and
/// without a viewer.
func runViewfinderBench() throws {
    print("\nviewfinder")
    // 1. The preview encode: a 1080p frame to 960×540 and at full size, ours vs jpegenc.
    let scene = SyntheticScene(SyntheticScene.Configuration(width: 1920, height: 1080, fps: 30, seed: 1))
    let frame = Image(width: 1920, height: 1080, format: .i420), right = Image(width: 1920, height: 1080, format: .i420)
    scene.render(frame: 150, left: frame, right: right, groundTruth: nil)
    let encoder = JPEGEncoder(quality: 75)
    for width in [960, 1920] {
        let n = 30
        var size = 0
        let t = time { for _ in 0..<n { size = encoder.encode(frame, maxWidth: width)!.count } }
        report(
            "preview JPEG q75 1080p → \(width) wide: ms/frame (Swift)",
            String(format: "%.2f ms (%d KB)", t * 1000 / Double(n), size / 1024))
    }
    let n = 60
    let src =
        "videotestsrc num-buffers=\(n) pattern=smpte ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1"
    let base = try shell("gst-launch-1.0 -q \(src) ! fakesink sync=false")
    let scaled = try shell(
        "gst-launch-1.0 -q \(src) ! videoscale ! video/x-raw,width=960,height=540 ! jpegenc quality=75 ! fakesink sync=false"
    )
    let full = try shell("gst-launch-1.0 -q \(src) ! jpegenc quality=75 ! fakesink sync=false")
    report(
        "peer: gst videoscale+jpegenc 1080p → 960 wide: ms/frame",
        String(format: "%.2f ms", (scaled - base) * 1000 / Double(n)))
    report("peer: gst jpegenc 1080p: ms/frame", String(format: "%.2f ms", (full - base) * 1000 / Double(n)))

    // 2. A recording graph (720p30 camera → x264 movie, and the viewfinder) without, then with
    // a viewer pulling frames as fast as it can.
    let latencies = Mutex<[Double]>([])
    let registry = NodeRegistry.standard()
    registry.registerViewfinder { frame, sent in
        let ms = Double(Int64(sent) - frame.timestamp.nanoseconds) / 1e6
        latencies.withLock { $0.append(ms) }
    }
    registry.register(UptimeCamera.self)
    let tmp = FileManager.default.temporaryDirectory.path
    let graph = try Graph.parse(
        """
        nodes:
          camera: { kind: bench-uptime-camera, fps: 30 }
          movie: { kind: movie, video: camera, path: "\(tmp)/bench-viewfinder.mp4", preset: veryfast }
          view: { kind: viewfinder, video: camera, port: 0, width: 960 }
        """, registry: registry, preflight: true)
    let runner = GraphRunner(graph: graph)
    let url = Mutex<String?>(nil)
    runner.subscribe { e in if e.name == "viewfinder-ready" { url.withLock { $0 = e.fields["url"] } } }
    runner.start()
    defer {
        runner.drain()
        _ = runner.wait()
        try? FileManager.default.removeItem(atPath: "\(tmp)/bench-viewfinder.mp4")
    }
    let phase = 8.0
    func counters() -> (movie: Int, camera: Int, drops: Int, wall: Double) {
        let s = runner.summary()
        return (
            s.nodes.first { $0.name == "movie" }?.processed ?? 0, s.nodes.first { $0.name == "camera" }?.processed ?? 0,
            s.edges.filter { $0.consumer.node == "movie" }.reduce(0) { $0 + $1.dropped }, s.wallSeconds
        )
    }
    Thread.sleep(forTimeInterval: 3)  // warm up: encoder start, first frames
    guard let address = url.withLock({ $0 }), let port = URL(string: address)?.port else {
        throw BenchError("the viewfinder did not start")
    }
    var a = counters()
    Thread.sleep(forTimeInterval: phase)
    var b = counters()
    report(
        "720p30 camera → x264 movie, no viewer: movie fps",
        String(format: "%.1f fps, %d dropped", Double(b.movie - a.movie) / (b.wall - a.wall), b.drops - a.drops))
    let viewer = BenchViewer(port: port)
    Thread.sleep(forTimeInterval: 1)
    latencies.withLock { $0.removeAll() }
    a = counters()
    let f0 = viewer.frames.load(ordering: .relaxed)
    Thread.sleep(forTimeInterval: phase)
    b = counters()
    let sent = viewer.frames.load(ordering: .relaxed) - f0
    viewer.stop()
    report(
        "720p30 camera → x264 movie, one viewer: movie fps",
        String(format: "%.1f fps, %d dropped", Double(b.movie - a.movie) / (b.wall - a.wall), b.drops - a.drops))
    report("  the viewer received (960×540 JPEG q75)", String(format: "%.1f fps", Double(sent) / (b.wall - a.wall)))
    let sorted = latencies.withLock { $0 }.sorted()
    if !sorted.isEmpty {
        report(
            "preview latency capture → WebSocket send: p50 / p95",
            String(
                format: "%.1f / %.1f ms",
                sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 95 / 100)]))
    }
}
