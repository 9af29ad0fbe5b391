// Built-in nodes, each driven through the node harness or a real graph, with real GStreamer.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Foundation
import Testing

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

    @Test func cameraNodeHearsItsMicrophoneOnTheFramesClock() throws {
        var h = try NodeHarness(CameraNode.self, parameters: [
            "source": "videotestsrc is-live=true num-buffers=45", "size": "160x120", "layout": "mono", "fps": "30",
            "microphone": "audiotestsrc is-live=true wave=sine volume=0.5",
        ])
        try h.start()
        var frames: [Timestamp] = []
        var blocks: [AudioBlock] = []
        while !h.hasEnded && frames.count < 45 {
            let out = try h.process()
            if out[\.$left] != nil { frames.append(h.timestamp) }
            if let b = out[\.$sound] {
                blocks.append(b)
                // Each frame brings what was captured by then, stamped on the frames' clock.
                #expect(abs((b.start - h.timestamp).seconds) < 0.3, "sound at \(b.start), frame at \(h.timestamp)")
            }
        }
        try h.finish()
        #expect(frames.count == 45)
        #expect(blocks.count >= 20)
        #expect(blocks.allSatisfy { $0.channels == 1 && $0.sampleRate == 48_000 })
        // As much sound as the frames span (1.5 s), within the capture's buffering.
        let heard = blocks.map(\.duration).reduce(0, +)
        let span = (frames.last! - frames.first!).seconds
        #expect(abs(heard - span) < 0.35, "\(heard) s of sound over \(span) s of frames")
        #expect(blocks.flatMap(\.samples).map { abs($0) }.max()! > 0.3, "the tone was heard")
        do {
            _ = try NodeHarness(CameraNode.self, parameters: ["microphone": " "])
            Issue.record("an empty microphone was accepted")
        } catch {
            #expect("\(error)".contains("microphone"))
        }
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
