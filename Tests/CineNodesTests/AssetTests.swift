// The cinematic asset: written by a graph, re-opened track by track, disparity exact to 1/64 px,
// and readable after the recording process is killed.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Synchronization
import Testing

@Suite(.serialized) struct AssetTests {
    @Test func assetRoundTripsVideoDisparityAndMetadata() throws {
        let path = temporaryFolder("asset").appendingPathComponent("take.cine.mkv").path
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: false, duration: 1s, fps: 12, seed: 4 }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, path: "\(path)", fps: 12, focal-length: 138.6 }
            """, registry: .standard())
        let runner = GraphRunner(graph: graph)
        let events = Mutex<[GraphEvent]>([])
        runner.subscribe { e in events.withLock { $0.append(e) } }
        runner.start()
        let summary = runner.wait()
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        #expect(events.withLock { $0 }.contains { $0.name == "asset-saved" && $0.fields["frames"] == "12" })

        let info = try MediaProbe.inspect(path: path)
        #expect(info.frameCount == 12 && info.width == 160 && info.height == 96)

        // Disparity: what the camera rendered, to 1/64 px.
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 160, height: 96, fps: 12, seed: 4))
        let disparity = try AssetTrackReader(path: path, track: .disparity)
        var index = 0
        while let (samples, t) = try disparity.nextImage() {
            // Matroska keeps times to the millisecond (the metadata records keep nanoseconds).
            #expect(abs((t - Timestamp(frame: index, fps: 12)).nanoseconds) <= 1_000_000)
            let truth = Image(width: 160, height: 96, format: .float32)
            scene.render(frame: index, left: Image(width: 160, height: 96, format: .i420),
                         right: Image(width: 160, height: 96, format: .i420), groundTruth: truth)
            let decoded = DisparityMap(quantized: samples, referenceWidth: 160, referenceHeight: 96)
            var worst: Float = 0
            for y in stride(from: 0, to: 96, by: 7) {
                for x in stride(from: 0, to: 160, by: 5) {
                    worst = max(worst, abs(decoded.values.plane(0).row(y, as: Float.self)[x] - truth.plane(0).row(y, as: Float.self)[x]))
                }
            }
            #expect(worst <= 1.0 / 128 + 1e-4, "frame \(index): error \(worst) px")
            index += 1
        }
        #expect(index == 12)

        // Metadata: a header, then one record per frame at the frame's time.
        let metadata = try AssetTrackReader(path: path, track: .metadata)
        var times: [Int64] = []
        while let r = try metadata.nextRecord() { times.append(r.time) }
        #expect(times == (0..<12).map { Timestamp(frame: $0, fps: 12).nanoseconds })
        let header = try #require(metadata.header)
        #expect(header.referenceWidth == 160 && header.disparityWidth == 160 && header.fps == 12)
        #expect(header.focalLengthPixels == 138.6)
    }

    @Test func quantizedDisparityMarksInvalidSamples() {
        let values = Image(width: 4, height: 1, format: .float32)
        let row = values.plane(0).row(0, as: Float.self)
        row[0] = 12.5; row[1] = .infinity; row[2] = .nan; row[3] = 0.001
        let q = DisparityMap(values: values, referenceWidth: 4, referenceHeight: 1).quantized()
        #expect(Array(UnsafeBufferPointer(start: q.plane(0).row(0, as: UInt16.self), count: 4)) == [800, 0, 0, 1])
        let decoded = DisparityMap(quantized: q, referenceWidth: 4, referenceHeight: 1).values.plane(0)
        let back = decoded.row(0, as: Float.self)
        #expect(back[0] == 12.5 && back[1] == .infinity && back[2] == .infinity && back[3] == 1.0 / 64)
        withExtendedLifetime(decoded) {}
    }

    @Test func assetRecordsAudioFromTheFirstFrameAndTheCalibration() throws {
        let folder = temporaryFolder("asset-audio")
        let path = folder.appendingPathComponent("take.cine.mkv").path
        func matrix(_ name: String, _ rows: Int, _ cols: Int, _ v: [Double]) -> String {
            "\(name): !!opencv-matrix\n   rows: \(rows)\n   cols: \(cols)\n   dt: d\n   data: [ "
                + v.map { String($0) }.joined(separator: ", ") + " ]\n"
        }
        let k: [Double] = [210, 0, 80, 0, 210, 48, 0, 0, 1], d: [Double] = [0, 0, 0, 0, 0]
        let calibrationText = "%YAML:1.0\n---\n" + matrix("K1", 3, 3, k) + matrix("D1", 1, 5, d) + matrix("K2", 3, 3, k)
            + matrix("D2", 1, 5, d) + matrix("R", 3, 3, [1, 0, 0, 0, 1, 0, 0, 0, 1]) + matrix("T", 3, 1, [-60, 0, 0])
        let calibration = folder.appendingPathComponent("stereo.yml").path
        try calibrationText.write(toFile: calibration, atomically: true, encoding: .utf8)
        // Live, so the microphone (a live test tone) and the camera share the clock; four channels kept.
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: true, duration: 3s, fps: 15, seed: 2 }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, path: "\(path)", fps: 15,
                       audio: test, audio-channels: 4, calibration: "\(calibration)" }
            """, registry: .standard(), preflight: true)
        let summary = try GraphRunner(graph: graph).run()
        #expect(summary.totalDrops == 0)
        let video = try MediaProbe.inspect(path: path)
        #expect(video.frameCount == 45)
        let audio = try #require(try AudioProbe.inspect(path: path), "the asset has no audio")
        #expect(audio.channels == 4)
        #expect(audio.sampleRate == 48_000)
        // The audio starts with the first frame and lasts as long as the video (within a buffer or two).
        #expect(abs(audio.durationSeconds - 3.0) < 0.05, "audio lasts \(audio.durationSeconds) s for 3 s of video")
        let metadata = try AssetTrackReader(path: path, track: .metadata)
        _ = try metadata.nextRecord()
        let header = try #require(metadata.header)
        #expect(header.audioChannels == 4 && header.audioSampleRate == 48_000)
        #expect(header.calibration == calibrationText)
        #expect(header.focalLengthPixels == 210)
        #expect(abs((header.baselineMetres ?? 0) - 0.06) < 1e-9)
    }

    @Test func assetRecordsTheGraphsSoundWithItsFrames() throws {
        let path = temporaryFolder("asset-sound").appendingPathComponent("take.cine.mkv").path
        // Not live: the sound comes with the frames, so the two share the frames' clock however fast they go.
        let graph = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: false, duration: 4s, fps: 15, seed: 2, talk: true, subjects: 2 }
              asset: { kind: asset, video: camera.left, sound: camera.sound, path: "\(path)", fps: 15 }
            """, registry: .standard(), preflight: true)
        let summary = try GraphRunner(graph: graph).run()
        #expect(summary.totalDrops == 0)
        #expect(try MediaProbe.inspect(path: path).frameCount == 60)
        let audio = try #require(try AudioProbe.inspect(path: path), "the asset has no audio")
        #expect(audio.channels == 1 && audio.sampleRate == 48_000)
        #expect(abs(audio.durationSeconds - 4.0) < 0.05, "audio lasts \(audio.durationSeconds) s for 4 s of video")
        // The voices come back as they were sent: the scene's own samples, where the first turn speaks.
        let heard = try #require(try AudioTrackReader.readMono(path: path, sampleRate: 48_000))
        #expect(heard.start == .zero)
        var c = SyntheticScene.Configuration(width: 160, height: 96, seed: 2, subjectCount: 2)
        c.talk = true
        let sent = SyntheticScene(c).sound(first: 0, count: 4 * 48_000, sampleRate: 48_000)
        #expect(abs(heard.samples.count - sent.count) < 960)
        let n = min(heard.samples.count, sent.count)
        var error = 0.0, power = 0.0
        for i in 0..<n {
            let d = Double(heard.samples[i] - sent[i])
            error += d * d / Double(n)
            power += Double(sent[i]) * Double(sent[i]) / Double(n)
        }
        #expect(power > 1e-4 && error < power * 1e-4, "recorded sound differs: error \(error), power \(power)")
    }

    @Test func soundStampedOffTheFramesClockIsAClearError() throws {
        let path = temporaryFolder("asset-sound-clock").appendingPathComponent("take.cine.mkv").path
        var options = AssetWriter.Options()
        options.audioInput = AssetWriter.AudioInputFormat(channels: 1, sampleRate: 16_000)
        let writer = try AssetWriter(path: path, header: AssetHeader(referenceWidth: 64, referenceHeight: 64, fps: 30),
                                     options: options)
        let frame = Image(width: 64, height: 64, format: .i420)
        try writer.append(video: frame, disparity: nil, record: AssetFrameRecord(time: 0), at: .zero)
        try writer.append(audio: AudioBlock(samples: [Float](repeating: 0.1, count: 533), sampleRate: 16_000, start: .zero), at: .zero)
        // A block an hour ahead of its frame: not silence to fill, a source on another clock.
        let late = AudioBlock(samples: [Float](repeating: 0.1, count: 533), sampleRate: 16_000, start: Timestamp(seconds: 3600))
        do {
            try writer.append(audio: late, at: Timestamp(seconds: 1.0 / 30))
            Issue.record("a block an hour ahead was recorded")
        } catch {
            #expect("\(error)".contains("ahead of its frame"), "\(error)")
        }
        // A frame without sound records silence; the take still closes.
        try writer.append(video: frame, disparity: nil, record: AssetFrameRecord(time: 0), at: Timestamp(seconds: 1.0 / 30))
        try writer.append(audio: nil, at: Timestamp(seconds: 1.0 / 30))
        try writer.finish()
        let audio = try #require(try AudioProbe.inspect(path: path))
        #expect(abs(audio.durationSeconds - 2.0 / 30) < 0.01, "\(audio.durationSeconds) s")
    }

    @Test func assetRejectsABadCalibrationAtPreflight() throws {
        let bad = temporaryFolder("asset-cal").appendingPathComponent("bad.yml").path
        try "%YAML:1.0\nK1: 3\n".write(toFile: bad, atomically: true, encoding: .utf8)
        do {
            _ = try Graph.parse("""
                nodes:
                  camera: { kind: synthetic, size: 160x96, live: false, duration: 1s }
                  asset: { kind: asset, video: camera.left, path: out.mkv, calibration: "\(bad)" }
                """, file: "take.conf", registry: .standard(), preflight: true)
            Issue.record("a bad calibration was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("take.conf:3") && text.contains("calibration") && text.contains("bad.yml"), "\(text)")
        }
    }

    @Test func recordStopAndStartMakeSeparateTakes() throws {
        let folder = temporaryFolder("asset-takes")
        let path = folder.appendingPathComponent("take.cine.mkv").path
        var h = try NodeHarness(AssetSinkNode.self, parameters: ["path": path, "fps": "10"])
        try h.start()
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 64, height: 48, fps: 10, seed: 1))
        func frame(_ i: Int) -> Image {
            let l = Image(width: 64, height: 48, format: .i420), r = Image(width: 64, height: 48, format: .i420)
            scene.render(frame: i, left: l, right: r, groundTruth: nil)
            return l
        }
        #expect(try h.command(NodeCommand("record", arguments: ["value": "start"])).contains("from the first frame"))
        for i in 0..<5 { _ = try h.process([\.$video: frame(i)], at: Timestamp(frame: i, fps: 10)) }
        #expect(try h.command(NodeCommand("record", arguments: ["value": "stop"])) == "stopped: \(path)")
        #expect(try h.command(NodeCommand("record", arguments: ["value": "stop"])) == "not recording")
        for i in 5..<8 { _ = try h.process([\.$video: frame(i)], at: Timestamp(frame: i, fps: 10)) }  // paused: not recorded
        #expect(try h.command(NodeCommand("status")).contains("paused"))
        _ = try h.command(NodeCommand("record", arguments: ["value": "start"]))
        for i in 8..<15 { _ = try h.process([\.$video: frame(i)], at: Timestamp(frame: i, fps: 10)) }
        try h.finish()
        let second = folder.appendingPathComponent("take-2.cine.mkv").path
        #expect(try MediaProbe.inspect(path: path).frameCount == 5)
        #expect(try MediaProbe.inspect(path: second).frameCount == 7)
        #expect(h.events.filter { $0.name == "asset-saved" }.map { $0.fields["path"] } == [path, second])
        #expect(throws: NodeCommandError.self) { try h.command(NodeCommand("record", arguments: ["value": "pause"])) }
    }

    @Test func aMovieTakeNeverOverwritesTheOneBefore() throws {
        // The movie shares the asset's takes: stop, start, and the second take is a new file.
        let folder = temporaryFolder("movie-takes")
        let path = folder.appendingPathComponent("take.mkv").path
        var h = try NodeHarness(MovieSinkNode.self, parameters: ["path": path, "fps": "10", "preset": "ultrafast"])
        try h.start()
        let frame = Image(width: 64, height: 48, format: .i420)
        for i in 0..<4 { _ = try h.process([\.$video: frame], at: Timestamp(frame: i, fps: 10)) }
        #expect(try h.command(NodeCommand("status")) == "\(path): 4 frames")
        #expect(try h.command(NodeCommand("record", arguments: ["value": "stop"])) == "stopped: \(path)")
        #expect(try h.command(NodeCommand("status")) == "paused (record start begins a new take)")
        _ = try h.command(NodeCommand("record", arguments: ["value": "start"]))
        for i in 4..<10 { _ = try h.process([\.$video: frame], at: Timestamp(frame: i, fps: 10)) }
        try h.finish()
        let second = folder.appendingPathComponent("take-2.mkv").path
        #expect(try MediaProbe.inspect(path: path).frameCount == 4)
        #expect(try MediaProbe.inspect(path: second).frameCount == 6)
        #expect(h.events.filter { $0.name == "movie-saved" }.map { $0.fields["path"] } == [path, second])
        #expect(throws: NodeCommandError("movie has no command 'zoom'; its commands: status, record")) {
            try h.command(NodeCommand("zoom"))
        }
        #expect(throws: NodeCommandError("record: action=pause is not one of start, stop (usage: record start|stop)")) {
            try h.command(NodeCommand("record", arguments: ["value": "pause"]))
        }
        // Both sinks take the same closed set of x264 presets, checked at load.
        for kind in [MovieSinkNode.kind, AssetSinkNode.kind] {
            do {
                _ = try Graph.parse("""
                    nodes:
                      camera: { kind: synthetic, duration: 1s }
                      out: { kind: \(kind), video: camera.left, preset: veryfst }
                    """, registry: .standard())
                Issue.record("\(kind): a misspelt preset loaded")
            } catch let e as ConfigErrors {
                #expect(e.errors.count == 1 && e.errors[0].key == "nodes.out.preset", "\(e)")
                #expect(e.errors[0].description.contains("did you mean 'veryfast'?"), "\(e)")
            }
        }
    }

    @Test func assetPathMustBeMatroska() {
        #expect(throws: ParameterError.self) { try NodeHarness(AssetSinkNode.self, parameters: ["path": "x.mp4"]) }
    }
}

@Suite(.serialized) struct AssetSourceTests {
    @Test func assetSourcePlaysBackFramesDisparityAndDetectionsInStep() throws {
        let folder = temporaryFolder("assetsource")
        let asset = folder.appendingPathComponent("a.cine.mkv").path
        let record = try Graph.parse("""
            nodes:
              camera: { kind: synthetic, size: 160x96, live: false, duration: 2s, fps: 10 }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, detections: camera.detections, path: "\(asset)", fps: 10 }
            """, registry: .standard())
        try GraphRunner(graph: record).run()

        let lines = folder.appendingPathComponent("replay.jsonl").path
        let copy = folder.appendingPathComponent("replay.mkv").path
        let replay = try Graph.parse("""
            nodes:
              src: { kind: asset-source, path: "\(asset)" }
              meta: { kind: metadata, detections: src.detections, path: "\(lines)" }
              again: { kind: asset, video: src.video, disparity: src.disparity, path: "\(copy)", fps: 10 }
            """, registry: .standard(), preflight: true)
        let summary = try GraphRunner(graph: replay).run()
        #expect(summary.nodes.first { $0.name == "src" }?.processed == 20)
        // Detections come back with their frames' exact times.
        let decoded = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(LineView.self, from: Data($0.utf8)) }
        #expect(decoded.map(\.time) == (0..<20).map { Timestamp(frame: $0, fps: 10).nanoseconds })
        #expect(decoded.contains { !$0.detections.isEmpty })
        // Disparity survives a second trip through the asset unchanged (both quantised to 1/64 px).
        let a = try AssetTrackReader(path: asset, track: .disparity), b = try AssetTrackReader(path: copy, track: .disparity)
        var frames = 0
        while let (x, _) = try a.nextImage(), let (y, _) = try b.nextImage() {
            #expect(pixelBytes(x) == pixelBytes(y))
            frames += 1
        }
        #expect(frames == 20)
    }

    @Test func assetSourceNamesAMissingFile() throws {
        let h = try NodeHarness(AssetSourceNode.self, parameters: ["path": "/nonexistent/take.cine.mkv"])
        #expect(throws: ParameterError.self) { try h.instance.preflight() }
    }
}
