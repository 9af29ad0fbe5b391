// Built-in nodes, each driven through the node harness or a real graph, with real GStreamer.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Foundation
import Testing

/// The repository root (for graphs/ and docs/).
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func temporaryFolder(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-tests-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Bytes of every plane, row by row (ignores padding).
func pixelBytes(_ image: Image) -> [UInt8] {
    var out: [UInt8] = []
    for p in 0..<image.format.planeCount {
        let plane = image.plane(p)
        for y in 0..<plane.height {
            out += UnsafeBufferPointer(start: plane.row(y, as: UInt8.self), count: plane.width * plane.bytesPerSample)
        }
    }
    return out
}

@Suite(.serialized) struct NodeTests {
    @Test func syntheticCameraGivesBothViewsTruthAndEnds() throws {
        var h = try NodeHarness(SyntheticCameraNode.self,
                                parameters: ["size": "160x90", "fps": "10", "duration": "0.5s", "live": "false"])
        try h.start()
        var frames: [SentPacket<SyntheticCameraNode>] = []
        while !h.hasEnded { frames += try h.process() }
        #expect(frames.count == 5)
        #expect(frames.map(\.timestamp) == (0..<5).map { Timestamp(frame: $0, fps: 10) })
        let stereo = try #require(frames[0][\.$stereo])
        #expect(stereo.left.width == 160 && stereo.left.height == 90 && stereo.left.format == .i420)
        let truth = try #require(frames[0][\.$disparity])
        #expect(truth.values.width == 160 && truth.referenceWidth == 160)
        let d = try #require(truth.disparity(atNormalized: 0.5, 0.5))
        #expect(d > 0)
        #expect(pixelBytes(stereo.left) != pixelBytes(stereo.right))
    }

    @Test func aLiveSourcePacesOnTheHarnessClockWithoutSleeping() throws {
        // Live: 4 s of camera at 10 fps. On the harness's manual clock `pace` returns at once and
        // the clock stands at each frame's instant.
        var h = try NodeHarness(SyntheticCameraNode.self,
                                parameters: ["size": "128x72", "fps": "10", "duration": "4s", "live": "true", "subjects": "0"])
        try h.start()
        var instants: [UInt64] = []
        var lefts = 0
        while !h.hasEnded {
            let out = try h.process()
            if out[\.$left] != nil { lefts += 1 }  // the port's handle, not its name
            instants.append(h.clock.nowNanoseconds)
        }
        #expect(lefts == 40)
        #expect(instants.last == 3_900_000_000, "\(instants.suffix(3))")
        #expect(zip(instants, instants.dropFirst()).allSatisfy { $1 - $0 == 100_000_000 || $1 == $0 })
    }

    @Test func syntheticCameraRejectsOddSizes() {
        #expect(throws: ParameterError.self) { try NodeHarness(SyntheticCameraNode.self, parameters: ["size": "161x90"]) }
    }

    @Test func sideBySidePacksAndSplitsBackExactly() throws {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 64, height: 48, fps: 30, seed: 3))
        let l = Image(width: 64, height: 48, format: .i420), r = Image(width: 64, height: 48, format: .i420)
        scene.render(frame: 2, left: l, right: r, groundTruth: nil)
        var h = try NodeHarness(SideBySideNode.self)
        let packed = try #require(try h.process([\.$stereo: StereoFrame(left: l, right: r)])[\.$video])
        #expect(packed.width == 128 && packed.height == 48)
        let views = StereoLayout.sideBySide.split(packed)
        #expect(pixelBytes(views.left) == pixelBytes(l))
        #expect(pixelBytes(try #require(views.right)) == pixelBytes(r))
        let tb = StereoLayout.topBottom.split(Image.packed(l, r, vertical: true))
        #expect(pixelBytes(tb.left) == pixelBytes(l) && pixelBytes(tb.right!) == pixelBytes(r))
    }

    @Test func gstSourceReadsATestPatternToTheEnd() throws {
        var h = try NodeHarness(GstSourceNode.self, parameters: [
            "description": "videotestsrc num-buffers=12 ! video/x-raw,width=96,height=64,framerate=30/1",
        ])
        try h.start()
        var count = 0
        while !h.hasEnded {
            if let image = try h.process()[\.$video] {
                #expect(image.width == 96 && image.height == 64 && image.format == .i420)
                count += 1
            }
        }
        try h.finish()
        #expect(count == 12)
    }

    @Test func gstSourceErrorNamesTheElement() throws {
        var h = try NodeHarness(GstSourceNode.self, parameters: ["description": "videotestsrc ! nosuchelement"])
        do {
            try h.start()
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("nosuchelement"))
        }
    }

    @Test func cameraNodeSplitsASideBySideLiveSource() throws {
        var h = try NodeHarness(CameraNode.self, parameters: [
            "source": "videotestsrc is-live=true num-buffers=5", "size": "320x120", "layout": "side-by-side",
        ])
        try h.start()
        var stereo: [StereoFrame] = []
        while !h.hasEnded && stereo.count < 5 {
            if let s = try h.process()[\.$stereo] { stereo.append(s) }
        }
        try h.finish()
        #expect(stereo.count == 5)
        #expect(stereo[0].left.width == 160 && stereo[0].right.width == 160 && stereo[0].left.height == 120)
    }

    @Test func cameraNodeJoinsTwoDevicesByTimestamp() throws {
        var h = try NodeHarness(CameraNode.self, parameters: [
            "source": "videotestsrc is-live=true num-buffers=8", "right-device": "second", "layout": "mono",
            "size": "128x96",
        ])
        try h.start()
        var pairs: [(StereoFrame, Timestamp)] = []
        while !h.hasEnded && pairs.count < 6 {
            if let s = try h.process()[\.$stereo] { pairs.append((s, h.timestamp)) }
        }
        try h.finish()
        #expect(pairs.count >= 5)
        #expect(pairs.allSatisfy { $0.0.left.width == 128 && $0.0.right.width == 128 })
        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0.1 < $1.1 })
    }

    @Test func movieSinkRecordsAndFileSourceReadsItBack() throws {
        let folder = temporaryFolder("movie")
        let path = folder.appendingPathComponent("sbs.mkv").path
        // Record 20 side-by-side frames through the movie node…
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 96, height: 64, fps: 30, seed: 1))
        var movie = try NodeHarness(MovieSinkNode.self, parameters: ["path": path, "preset": "ultrafast"])
        var sbs = try NodeHarness(SideBySideNode.self)
        for i in 0..<20 {
            let l = Image(width: 96, height: 64, format: .i420), r = Image(width: 96, height: 64, format: .i420)
            scene.render(frame: i, left: l, right: r, groundTruth: nil)
            let packed = try #require(try sbs.process([\.$stereo: StereoFrame(left: l, right: r)])[\.$video])
            _ = try movie.process([\.$video: packed], at: Timestamp(frame: i, fps: 30))
        }
        try movie.finish()
        #expect(movie.events.contains { $0.name == "movie-saved" && $0.fields["frames"] == "20" })
        let info = try MediaProbe.inspect(path: path)
        #expect(info.frameCount == 20 && info.width == 192 && info.height == 64)
        // …and read them back as stereo pairs.
        var file = try NodeHarness(FileSourceNode.self, parameters: ["path": path, "layout": "side-by-side"])
        try file.instance.preflight()
        try file.start()
        var pairs = 0
        while !file.hasEnded {
            if let s = try file.process()[\.$stereo] {
                #expect(s.left.width == 96 && s.right.width == 96 && s.left.height == 64)
                pairs += 1
            }
        }
        #expect(pairs == 20)
    }

    @Test func fileSourceReadsAStillImagePair() throws {
        let folder = temporaryFolder("pair")
        for (name, pattern) in [("l.png", "smpte"), ("r.png", "ball")] {
            let p = try Pipeline("videotestsrc num-buffers=1 pattern=\(pattern) ! video/x-raw,width=80,height=60 ! pngenc ! filesink location=\(folder.appendingPathComponent(name).path)")
            try p.play()
            #expect(try p.waitForEndOfStream(timeout: 10))
            p.stop()
        }
        var h = try NodeHarness(FileSourceNode.self, parameters: [
            "path": folder.appendingPathComponent("l.png").path, "right-path": folder.appendingPathComponent("r.png").path,
        ])
        try h.start()
        var pairs: [StereoFrame] = []
        while !h.hasEnded { if let s = try h.process()[\.$stereo] { pairs.append(s) } }
        #expect(pairs.count == 1)
        #expect(pairs[0].left.width == 80 && pairs[0].right.height == 60)
        #expect(pixelBytes(pairs[0].left) != pixelBytes(pairs[0].right))
    }

    @Test func fileSourcePreflightNamesTheMissingFile() throws {
        let h = try NodeHarness(FileSourceNode.self, parameters: ["path": "/nonexistent/clip.mp4"])
        #expect(throws: ParameterError.self) { try h.instance.preflight() }
    }

    @Test func offlineGraphRecordsEveryFrame() throws {
        let path = temporaryFolder("graph").appendingPathComponent("g.mp4").path
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 128x96, live: false, duration: 2s, fps: 15 }
              movie: { kind: movie, video: camera.left, path: "\(path)", preset: ultrafast }
            """, registry: .standard())
        let summary = try GraphRunner(graph: graph).run()
        #expect(summary.totalDrops == 0)
        let info = try MediaProbe.inspect(path: path)
        #expect(info.frameCount == 30 && info.width == 128 && info.height == 96)
        #expect(abs(info.durationSeconds - 2.0) < 0.1)
    }
}

@Suite struct DocsAndGraphsTests {
    @Test func nodeReferenceIsCurrent() throws {
        let file = try String(contentsOf: repoRoot.appendingPathComponent("docs/nodes.md"), encoding: .utf8)
        #expect(file == NodeReference.markdown(NodeRegistry.standard().withViewfinder()), "docs/nodes.md is stale: run `make docs`")
    }

    @Test func builtInDemoIsGraphsDemoConf() throws {
        let file = try String(contentsOf: repoRoot.appendingPathComponent("graphs/demo.conf"), encoding: .utf8)
        #expect(file == DefaultGraphs.demo)
    }

    @Test func everyGraphValidates() throws {
        let folder = repoRoot.appendingPathComponent("graphs")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".conf") }
        #expect(files.count >= 3)
        for f in files { _ = try Graph.load(contentsOf: folder.appendingPathComponent(f).path, registry: NodeRegistry.standard().withViewfinder()) }
    }

    @Test func everyNodeKindIsDocumented() {
        for d in NodeRegistry.standard().withViewfinder().descriptions {
            #expect(!d.summary.isEmpty)
            for p in d.parameters { #expect(!p.doc.isEmpty, "\(d.kind).\(p.name) has no doc") }
            for p in d.inputs + d.outputs { #expect(!p.doc.isEmpty, "\(d.kind).\(p.name) has no doc") }
        }
    }
}

@Suite(.serialized) struct SourceCalibrationTests {
    private func matrix(_ name: String, _ rows: Int, _ cols: Int, _ v: [Double]) -> String {
        "\(name): !!opencv-matrix\n   rows: \(rows)\n   cols: \(cols)\n   dt: d\n   data: [ "
            + v.map { String($0) }.joined(separator: ", ") + " ]\n"
    }

    /// The mean absolute luma difference between `a` row y and `b` row y + shift, over the middle rows.
    private func rowDifference(_ a: Image, _ b: Image, shift: Int) -> Double {
        var sum = 0.0, n = 0
        for y in 20..<(a.height - 20) {
            let ra = a.plane(0).row(y, as: UInt8.self), rb = b.plane(0).row(y + shift, as: UInt8.self)
            for x in 10..<(a.width - 10) {
                sum += abs(Double(ra[x]) - Double(rb[x]))
                n += 1
            }
        }
        return sum / Double(n)
    }

    @Test func fileSourceRectifiesBothViewsInColourWithACalibration() throws {
        let folder = temporaryFolder("calibrated-pair")
        let image = folder.appendingPathComponent("view.png").path
        let p = try Pipeline("videotestsrc num-buffers=1 pattern=pinwheel foreground-color=0xffff2000 background-color=0xff0030ff ! video/x-raw,width=160,height=120 ! pngenc ! filesink location=\(image)")
        try p.play()
        #expect(try p.waitForEndOfStream(timeout: 10))
        p.stop()
        // Rectified-form calibration: the left view tilted so that content moves ~6 rows, the right untouched.
        let t = atan(6.0 / 300.0)
        let tilt: [Double] = [1, 0, 0, 0, cos(t), -sin(t), 0, sin(t), cos(t)]
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let p1: [Double] = [300, 0, 80, 0, 0, 300, 60, 0, 0, 0, 1, 0]
        let p2: [Double] = [300, 0, 80, -18, 0, 300, 60, 0, 0, 0, 1, 0]
        let calibration = folder.appendingPathComponent("stereo.yml").path
        try ("%YAML:1.0\n---\n" + matrix("R1", 3, 3, tilt) + matrix("R2", 3, 3, identity) + matrix("P1", 3, 4, p1)
            + matrix("P2", 3, 4, p2)).write(toFile: calibration, atomically: true, encoding: .utf8)

        func pair(_ parameters: [String: String]) throws -> StereoFrame {
            var h = try NodeHarness(FileSourceNode.self, parameters: ["path": image, "right-path": image].merging(parameters) { $1 })
            try h.instance.preflight()
            try h.start()
            let out = try #require(try h.process()[\.$stereo])
            try h.finish()
            return out
        }
        let raw = try pair([:])
        let rectified = try pair(["calibration": calibration])
        #expect(rectified.left.format == .i420 && rectified.left.width == 160 && rectified.right.height == 120)
        // The right view is unchanged (identity), the left moved by about six rows one way or the other.
        #expect(rowDifference(rectified.right, raw.right, shift: 0) < 2)
        let moved = min(rowDifference(raw.left, rectified.left, shift: 6), rowDifference(rectified.left, raw.left, shift: 6))
        #expect(moved < 0.5 * rowDifference(rectified.left, raw.left, shift: 0), "moved \(moved)")
        // Chroma is remapped too, not left grey: the pinwheel's colours survive.
        let u = rectified.left.plane(1)
        let centre = u.row(u.height / 2, as: UInt8.self)
        #expect((0..<u.width).contains { abs(Int(centre[$0]) - 128) > 20 })
    }

    @Test func calibrationErrorsNameTheParameterAndFile() throws {
        let bad = temporaryFolder("bad-calibration").appendingPathComponent("bad.yml").path
        try "%YAML:1.0\nK1: 1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let h = try NodeHarness(FileSourceNode.self, parameters: ["path": bad, "right-path": bad, "calibration": bad])
        do {
            try h.instance.preflight()
            Issue.record("a bad calibration passed preflight")
        } catch let e as ParameterError {
            #expect(e.parameter == "calibration" && "\(e)".contains("bad.yml"), "\(e)")
        }
        #expect(throws: ParameterError.self) {
            try NodeHarness(FileSourceNode.self, parameters: ["path": bad, "calibration": bad])  // mono: nothing to rectify
        }
        #expect(throws: ParameterError.self) {
            try NodeHarness(FileSourceNode.self, parameters: ["path": bad, "layout": "side-by-side", "calibration-right": bad]).instance.preflight()
        }
    }
}

@Suite struct ResizeTests {
    @Test func areaAverageHalvesAFrameExactly() throws {
        let image = Image(width: 8, height: 4, format: .i420)
        for y in 0..<4 { for x in 0..<8 { image.plane(0).row(y, as: UInt8.self)[x] = UInt8(x * 30 + y) } }
        for p in 1...2 { for y in 0..<2 { for x in 0..<4 { image.plane(p).row(y, as: UInt8.self)[x] = UInt8(100 + x * 10) } } }
        var h = try NodeHarness(ResizeNode.self, parameters: ["size": "4x2"])
        let out = try #require(try h.process([\.$video: image])[\.$resized])
        #expect(out.width == 4 && out.height == 2 && out.format == .i420)
        // Each output pixel is the rounded mean of its 2×2 block (luma) or 2×1 block (chroma).
        for y in 0..<2 {
            for x in 0..<4 {
                let block = [(2 * x, 2 * y), (2 * x + 1, 2 * y), (2 * x, 2 * y + 1), (2 * x + 1, 2 * y + 1)]
                    .map { Int(image.plane(0).row($0.1, as: UInt8.self)[$0.0]) }
                #expect(Int(out.plane(0).row(y, as: UInt8.self)[x]) == (block.reduce(0, +) + 2) / 4, "(\(x),\(y))")
            }
        }
        #expect(out.plane(1).width == 2 && out.plane(1).row(0, as: UInt8.self)[0] == 105)
        // The vectorised halving (16 outputs at a time) agrees with the 2×2 mean everywhere.
        let noise = Image(width: 100, height: 40, format: .gray8)
        var seed: UInt32 = 7
        for y in 0..<40 { for x in 0..<100 { seed = seed &* 1_103_515_245 &+ 12345; noise.plane(0).row(y, as: UInt8.self)[x] = UInt8(truncatingIfNeeded: seed >> 16) } }
        let half = ImageResizer().resize(noise, width: 50, height: 20)
        for y in 0..<20 {
            for x in 0..<50 {
                let p = noise.plane(0)
                let sum = Int(p.row(2 * y, as: UInt8.self)[2 * x]) + Int(p.row(2 * y, as: UInt8.self)[2 * x + 1])
                    + Int(p.row(2 * y + 1, as: UInt8.self)[2 * x]) + Int(p.row(2 * y + 1, as: UInt8.self)[2 * x + 1])
                #expect(Int(half.plane(0).row(y, as: UInt8.self)[x]) == (sum + 2) / 4, "(\(x),\(y))")
            }
        }
        // Width keeps the aspect ratio; odd I420 sizes are rounded down to even.
        let wide = Image(width: 1920, height: 1080, format: .i420)
        var w = try NodeHarness(ResizeNode.self, parameters: ["width": "961"])
        let scaled = try #require(try w.process([\.$video: wide])[\.$resized])
        #expect(scaled.width == 960 && scaled.height == 540)
    }
}
