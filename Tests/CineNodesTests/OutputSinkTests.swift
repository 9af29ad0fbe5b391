// The frames and preview sinks: real files re-opened, a real GStreamer sink, a Swift callback,
// and a real window on a virtual X display captured back with ximagesrc.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import Foundation
import Synchronization
import Testing

/// A gray I420 frame of the given size.
func grayFrame(_ w: Int, _ h: Int, luma: UInt8 = 100) -> Image {
    let image = Image(width: w, height: h, format: .i420)
    image.plane(0).fill(byte: luma)
    image.plane(1).fill(byte: 128)
    image.plane(2).fill(byte: 128)
    return image
}

/// Reads one frame of a still image or the first frame of a movie as I420.
func decodeFirstFrame(_ path: String) throws -> Image {
    let p = try Pipeline("filesrc location=\(path) ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false")
    let reader = try AppSinkReader(pipeline: p, name: "sink")
    try p.play()
    defer { p.stop() }
    guard case .frame(let image, _) = try reader.next(timeout: 10) else { throw ControlError("no frame in \(path)") }
    return image
}

@Suite(.serialized) struct OutputSinkTests {
    @Test func framesSinkWritesNumberedPNGsThatReopen() throws {
        let folder = temporaryFolder("frames")
        var h = try NodeHarness(FramesSinkNode.self, parameters: ["path": folder.path + "/f-%03d.png"])
        for i in 0..<5 { _ = try h.process([\.$video: grayFrame(64, 48, luma: UInt8(40 + 30 * i))], at: Timestamp(frame: i, fps: 30)) }
        try h.finish()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(files == ["f-000.png", "f-001.png", "f-002.png", "f-003.png", "f-004.png"])
        let third = try decodeFirstFrame(folder.path + "/f-002.png")
        #expect(third.width == 64 && third.height == 48)
        #expect(abs(Int(third.plane(0).row(10, as: UInt8.self)[10]) - 100) <= 2)
    }

    @Test func framesSinkFeedsAGStreamerDescription() throws {
        let path = temporaryFolder("framesgst").path + "/out.mkv"
        var h = try NodeHarness(FramesSinkNode.self, parameters: [
            "description": "x264enc speed-preset=ultrafast ! h264parse ! matroskamux ! filesink location=\(path)",
        ])
        for i in 0..<12 { _ = try h.process([\.$video: grayFrame(96, 64)], at: Timestamp(frame: i, fps: 30)) }
        try h.finish()
        #expect(try MediaProbe.inspect(path: path).frameCount == 12)
    }

    @Test func framesSinkCallsTheRegisteredCallbackFromAGraph() throws {
        let seen = Mutex<[Int64]>([])
        let registry = NodeRegistry.standard(frameCallbacks: [
            "test-callback": { image, t in if image.width == 128 { seen.withLock { $0.append(t.nanoseconds) } } },
        ])
        let text = """
            nodes:
              camera: { kind: synthetic, size: 128x96, live: false, duration: 1s, fps: 10 }
              out: { kind: frames, video: camera.left, callback: test-callback }
            """
        let graph = try Graph.parse(text, registry: registry, preflight: true)
        try GraphRunner(graph: graph).run()
        #expect(seen.withLock { $0 } == (0..<10).map { Timestamp(frame: $0, fps: 10).nanoseconds })
        // Callbacks belong to the registry they were given to, not to the process: another
        // registry validates the config (anywhere) but will not run it, naming the callback.
        _ = try Graph.parse(text, registry: .standard())
        do {
            _ = try Graph.parse(text, file: "cb.conf", registry: .standard(), preflight: true)
            Issue.record("ran without its callback")
        } catch let e as ConfigErrors {
            #expect(e.errors.count == 1 && e.errors[0].key == "nodes.out.callback", "\(e)")
            #expect(e.errors[0].description.contains("no callback registered as 'test-callback'"), "\(e)")
        }
    }

    @Test func framesSinkRejectsAmbiguousOrUnknownTargets() throws {
        #expect(throws: ParameterError.self) { try NodeHarness(FramesSinkNode.self) }
        #expect(throws: ParameterError.self) {
            try NodeHarness(FramesSinkNode.self, parameters: ["path": "a/%d.png", "callback": "x"])
        }
        var h = try NodeHarness(FramesSinkNode.self, parameters: ["callback": "nobody-registered-this"])
        #expect(throws: ParameterError.self) { try h.instance.preflight() }
        #expect(throws: ParameterError.self) { try h.start() }
    }

    @Test func previewWithoutADisplaySaysSoOnceAndGoesOn() throws {
        guard ProcessInfo.processInfo.environment["DISPLAY"] == nil,
              ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] == nil else { return }
        var h = try NodeHarness(PreviewSinkNode.self)
        for i in 0..<5 { _ = try h.process([\.$video: grayFrame(64, 48)], at: Timestamp(frame: i, fps: 30)) }
        try h.finish()
        #expect(h.events.filter { $0.name == "preview-unavailable" }.count == 1)
    }

    @Test func previewShowsFramesWithFocusRectanglesInARealWindow() throws {
        // A display number nobody holds (a killed X server leaves its lock file behind).
        let number = (90..<190).first { !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock") }!
        let display = ":\(number)"
        let socket = "/tmp/.X11-unix/X\(number)"
        let xvfb = Process()
        xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xvfb.arguments = [display, "-screen", "0", "320x240x24", "-nolisten", "tcp"]
        xvfb.standardError = FileHandle.nullDevice
        try xvfb.run()
        defer {
            kill(xvfb.processIdentifier, SIGKILL)
            xvfb.waitUntilExit()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
            try? FileManager.default.removeItem(atPath: socket)
        }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
        #expect(FileManager.default.fileExists(atPath: socket), "Xvfb did not start")
        Thread.sleep(forTimeInterval: 0.2)

        var h = try NodeHarness(PreviewSinkNode.self, parameters: ["sink": "ximagesink display=\(display) sync=false", "line-width": "4"])
        let strong = Detection(id: 1, type: .humanFace, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.5, height: 0.6),
                               focusMode: .strong)
        for i in 0..<15 {
            _ = try h.process([\.$video: grayFrame(320, 240, luma: 60), \.$detections: [strong]], at: Timestamp(frame: i, fps: 30))
            Thread.sleep(forTimeInterval: 0.03)
        }
        // Capture the screen while the window is up and look for the yellow outline.
        let grab = try Pipeline("ximagesrc display-name=\(display) num-buffers=1 use-damage=false ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false")
        let reader = try AppSinkReader(pipeline: grab, name: "sink")
        try grab.play()
        guard case .frame(let screen, _) = try reader.next(timeout: 10) else {
            Issue.record("no screen capture")
            return
        }
        grab.stop()
        try h.finish()
        #expect(h.events.isEmpty, "\(h.events)")
        var yellow = 0, gray = 0
        let y = screen.plane(0), v = screen.plane(2), u = screen.plane(1)
        for row in stride(from: 0, to: u.height, by: 1) {
            for col in 0..<u.width {
                let uu = u.row(row, as: UInt8.self)[col], vv = v.row(row, as: UInt8.self)[col]
                let yy = y.row(row * 2, as: UInt8.self)[col * 2]
                if uu < 90 && vv > 128 && yy > 150 { yellow += 1 }
                if abs(Int(yy) - 60) < 6 && abs(Int(uu) - 128) < 6 { gray += 1 }
            }
        }
        #expect(yellow > 100, "yellow chroma samples on screen: \(yellow)")
        #expect(gray > 2000, "gray frame samples on screen: \(gray)")
    }
}

@Suite(.serialized) struct MovieDepthTests {
    @Test func tenBitMoviesAreHigh10() throws {
        let path = temporaryFolder("tenbit").appendingPathComponent("m.mkv").path
        var h = try NodeHarness(MovieSinkNode.self, parameters: ["path": path, "bit-depth": "10", "preset": "ultrafast"])
        for i in 0..<10 { _ = try h.process([\.$video: grayFrame(96, 64)], at: Timestamp(frame: i, fps: 30)) }
        try h.finish()
        #expect(try MediaProbe.inspect(path: path).frameCount == 10)
        let p = try Pipeline("filesrc location=\(path) ! matroskademux ! h264parse ! appsink name=sink sync=false")
        try p.play()
        defer { p.stop() }
        let sink = try #require(p.caps(ofElement: "sink"))
        #expect(sink.contains("high-10"), "\(sink)")
        #expect(throws: ParameterError.self) { try NodeHarness(MovieSinkNode.self, parameters: ["bit-depth": "9"]) }
    }
}

@Suite struct ImageDrawingTests {
    @Test func dashedAndSolidOutlinesLandOnTheEdges() {
        let image = grayFrame(100, 80, luma: 50)
        image.strokeRectangle(NormalizedRect(x: 0.2, y: 0.25, width: 0.5, height: 0.5), color: .white, thickness: 2)
        let row = image.plane(0).row(20, as: UInt8.self)
        #expect(row[20] > 200 && row[69] > 200 && row[45] > 200)  // top edge, solid
        #expect(image.plane(0).row(40, as: UInt8.self)[45] == 50)  // inside untouched
        let dashed = grayFrame(100, 80, luma: 50)
        dashed.strokeRectangle(NormalizedRect(x: 0, y: 0, width: 1, height: 1), color: .focusYellow, thickness: 1, dash: 5)
        let top = dashed.plane(0).row(0, as: UInt8.self)
        #expect(top[0] > 150 && top[7] == 50 && top[10] > 150)
    }
}
