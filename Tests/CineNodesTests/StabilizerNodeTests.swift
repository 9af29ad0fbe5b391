// The stabilizer node on synthetic shaky clips: shake removed, pans kept, the crop never shows
// outside pixels, video, disparity and detections move together, the lookahead is flushed at
// the end, and bad input is a clear error.
import CineTestSupport
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

private func shakyClip(_ edit: (inout ShakyClipGenerator.Configuration) -> Void) throws -> ShakyClipGenerator {
    var c = ShakyClipGenerator.Configuration()
    c.width = 320
    c.height = 180
    edit(&c)
    return try ShakyClipGenerator(configuration: c)
}

/// Runs `frames` through a stabilizer node (30 fps stamps), flushing at the end; returns every
/// packet it sent, oldest first, and how many came out before `finish`.
private func stabilize(
    _ frames: [PortValues<StabilizerNode>], parameters: [String: String], connected: Set<String>? = nil
) throws -> (packets: [SentPacket<StabilizerNode>], beforeFinish: Int) {
    var h = try NodeHarness(StabilizerNode.self, parameters: parameters, connectedOutputs: connected)
    try h.start()
    var packets: [SentPacket<StabilizerNode>] = []
    for (i, inputs) in frames.enumerated() {
        let now = Timestamp(frame: i, fps: 30)
        let sent = try h.process(inputs, at: now)
        // One frame in, at most one out: a held frame, stamped with its own (earlier) instant.
        #expect(sent.count <= 1 && sent.allSatisfy { $0.timestamp < now }, "\(sent.map(\.timestamp)) at \(now)")
        packets += sent
    }
    let before = packets.count
    packets += try h.finish()
    return (packets, before)
}

private func meter(_ images: [Image]) throws -> StabilizationJitterMeter.Result {
    var m = try StabilizationJitterMeter()
    for image in images { try m.push(image) }
    return m.result
}

@Suite(.serialized) struct StabilizerNodeTests {
    @Test func shakyClipComesOutSteadyWithItsPanAndEveryFrame() throws {
        let gen = try shakyClip {
            $0.frameCount = 90; $0.jitterAmplitude = 3; $0.panX = 1.2
        }
        let input = (0..<90).map { gen.frame(at: $0) }
        let (packets, before) = try stabilize(input.map { [\.$video: $0] }, parameters: ["mode": "standard"])
        // Lookahead 15: nothing for the first 15 instants, then one per instant, the rest at finish.
        #expect(before == 75)
        #expect(packets.count == 90)
        #expect(packets.map(\.timestamp) == (0..<90).map { Timestamp(frame: $0, fps: 30) })
        let output = packets.compactMap { $0[\.$stabilizedVideo] }
        #expect(output.count == 90)
        #expect(output.allSatisfy { $0.width == 320 && $0.height == 180 && $0.format == .i420 })
        let shaky = try meter(input), after = try meter(output)
        #expect(after.jitter < 0.3 * shaky.jitter, "jitter \(shaky) → \(after)")
        // The pan survives, magnified by the crop's zoom (1 / 0.92) in output pixels.
        let zoom = 1 / (1 - StabilizationMode.standard.maxCropFraction)
        #expect(
            abs(after.meanVelocityX - shaky.meanVelocityX * zoom) < 0.05 * abs(shaky.meanVelocityX * zoom),
            "pan \(shaky.meanVelocityX) → \(after.meanVelocityX)")
    }

    @Test(arguments: ["standard", "cinematic-extended-enhanced"])
    func cropNeverShowsPixelsFromOutsideTheFrame(mode: String) throws {
        // Shake far beyond the crop margin, and a black 1-pixel border on every input frame: the
        // texture is never darker than 16, so an output sample that reads (mostly) outside the
        // frame — where the warp clamps to the border — shows up as a near-black pixel.
        let gen = try shakyClip {
            $0.frameCount = 60; $0.jitterAmplitude = 14; $0.jitterBand = 0.5...3; $0.rotationJitter = 0.02
        }
        let input = (0..<60).map { t -> Image in
            let f = gen.frame(at: t)
            let luma = f.plane(0)
            luma.row(0).initializeMemory(as: UInt8.self, repeating: 0, count: 320)
            luma.row(179).initializeMemory(as: UInt8.self, repeating: 0, count: 320)
            for y in 0..<180 {
                luma.row(y, as: UInt8.self)[0] = 0
                luma.row(y, as: UInt8.self)[319] = 0
            }
            return f
        }
        let (packets, _) = try stabilize(input.map { [\.$video: $0] }, parameters: ["mode": mode, "stereo-safe": "off"])
        #expect(packets.count == 60)
        var moved = 0
        for (t, p) in packets.enumerated() {
            let out = try #require(p[\.$stabilizedVideo])
            var darkest: UInt8 = 255
            for y in 0..<180 {
                let row = out.plane(0).row(y, as: UInt8.self)
                for x in 0..<320 { darkest = min(darkest, row[x]) }
            }
            #expect(darkest >= 4, "frame \(t) shows the border (luma \(darkest))")
            if memcmp(out.plane(0).row(90), input[t].plane(0).row(90), 320) != 0 { moved += 1 }
        }
        #expect(moved == 60)
    }

    @Test func disparityAndDetectionsLandWhereTheVideoDoes() throws {
        // A marker square in the video, the same square nearer in a half-resolution disparity map,
        // and a detection box around it: after stabilization all three must coincide.
        let gen = try shakyClip {
            $0.frameCount = 40; $0.jitterAmplitude = 5; $0.panY = 0.5
        }
        let marker = (x: 140, y: 70, size: 40)
        var frames: [PortValues<StabilizerNode>] = []
        for t in 0..<40 {
            let f = gen.frame(at: t)
            for y in marker.y..<(marker.y + marker.size) {
                f.plane(0).row(y, as: UInt8.self).advanced(by: marker.x).update(repeating: 255, count: marker.size)
            }
            let values = Image(width: 160, height: 90, format: .float32)
            for v in 0..<90 {
                let row = values.plane(0).row(v, as: Float.self)
                for u in 0..<160 {
                    let inside =
                        (marker.x / 2..<(marker.x + marker.size) / 2).contains(u)
                        && (marker.y / 2..<(marker.y + marker.size) / 2).contains(v)
                    row[u] = inside ? 40 : 5
                }
            }
            let map = DisparityMap(values: values, referenceWidth: 320, referenceHeight: 180)
            let box = NormalizedRect(
                x: Double(marker.x) / 320, y: Double(marker.y) / 180, width: Double(marker.size) / 320,
                height: Double(marker.size) / 180)
            let detections: Detections = [
                Detection(id: 1, type: .humanFace, bounds: box, disparity: 40),
                Detection(id: 2, type: .humanBody, bounds: NormalizedRect(x: 0, y: 0, width: 0.01, height: 0.01)),
            ]
            frames.append([\.$video: f, \.$disparity: map, \.$detections: detections,
                           \.$focus: FocusState(focusDisparity: 40, targetDetectionID: 1), \.$pair: KeptPair.recorded(left: f, right: f)])
        }
        let (packets, _) = try stabilize(frames, parameters: ["mode": "cinematic"])
        #expect(packets.count == 40)
        for (t, p) in packets.enumerated() {
            let video = try #require(p[\.$stabilizedVideo])
            let map = try #require(p[\.$stabilizedDisparity])
            let detections = try #require(p[\.$stabilizedDetections])
            // Bounds of the marker in each stream, in output pixels.
            var vb = (minX: 999, maxX: -1, minY: 999, maxY: -1)
            for y in 0..<180 {
                for x in 0..<320 where video.plane(0).row(y, as: UInt8.self)[x] > 245 {
                    vb = (min(vb.minX, x), max(vb.maxX, x + 1), min(vb.minY, y), max(vb.maxY, y + 1))
                }
            }
            var db = (minX: 999, maxX: -1, minY: 999, maxY: -1)
            var values = Set<Float>()
            for v in 0..<90 {
                for u in 0..<160 {
                    let d = map.values.plane(0).row(v, as: Float.self)[u]
                    values.insert(d)
                    if d > 20 { db = (min(db.minX, u), max(db.maxX, u + 1), min(db.minY, v), max(db.maxY, v + 1)) }
                }
            }
            let face = try #require(detections.first { $0.id == 1 })
            let box = (
                minX: face.bounds.x * 320, maxX: (face.bounds.x + face.bounds.width) * 320,
                minY: face.bounds.y * 180, maxY: (face.bounds.y + face.bounds.height) * 180
            )
            for (a, b, c) in [
                (Double(vb.minX), Double(db.minX * 2), box.minX), (Double(vb.maxX), Double(db.maxX * 2), box.maxX),
                (Double(vb.minY), Double(db.minY * 2), box.minY), (Double(vb.maxY), Double(db.maxY * 2), box.maxY),
            ] {
                #expect(
                    abs(a - c) <= 1.5 && abs(b - c) <= 2.5, "frame \(t): video \(a), disparity \(b), detection \(c)")
            }
            // Edge-safe: every disparity is one of the two the map held (scaled by the zoom), no blends.
            let zoom = Float(1 / (1 - StabilizationMode.cinematic.maxCropFraction))
            let scales = values.map { $0 / zoom }
            #expect(scales.allSatisfy { abs($0 - 5) < 0.2 || abs($0 - 40) < 1.5 }, "frame \(t): \(values.sorted())")
            #expect(abs((face.disparity ?? 0) - 40 * Double(zoom)) < 1.5)
            // Focus, in the moved frame's pixels too, agrees with the face it is on.
            let focus = try #require(p[\.$stabilizedFocus])
            #expect(abs(focus.focusDisparity - (face.disparity ?? 0)) < 1e-6, "frame \(t): focus \(focus.focusDisparity)")
            // The kept pair moved with its frame: in each view the marker (at a quarter of the
            // size) lands where the video's does.
            let pair = try #require(p[\.$stabilizedPair])
            for view in 0..<2 {
                var pb = (minX: 999, maxX: -1, minY: 999, maxY: -1)
                for y in 0..<pair.height {
                    let row = pair.plane(0).row(y, as: UInt8.self) + view * pair.width / 2
                    for x in 0..<(pair.width / 2) where row[x] > 245 {
                        pb = (min(pb.minX, x), max(pb.maxX, x + 1), min(pb.minY, y), max(pb.maxY, y + 1))
                    }
                }
                #expect(abs(Double(pb.minX * 4) - box.minX) <= 6 && abs(Double(pb.maxX * 4) - box.maxX) <= 6
                        && abs(Double(pb.minY * 4) - box.minY) <= 6 && abs(Double(pb.maxY * 4) - box.maxY) <= 6,
                        "frame \(t), view \(view): pair \(pb) ×4, detection \(box)")
            }
            // The tiny box in the corner is cropped away.
            #expect(!detections.contains { $0.id == 2 })
        }
    }

    @Test func stereoSafeCorrectionsNeverRotate() throws {
        let gen = try shakyClip {
            $0.frameCount = 40; $0.jitterAmplitude = 2; $0.rotationJitter = 0.02
        }
        let input = (0..<40).map { gen.frame(at: $0) }
        let values = Image(width: 80, height: 45, format: .float32)
        values.plane(0).fill(byte: 0)
        let map = DisparityMap(values: values, referenceWidth: 320, referenceHeight: 180)
        let estimator = try MotionEstimator()
        func rotations(_ parameters: [String: String], disparity: Bool) throws -> [Double] {
            let frames: [PortValues<StabilizerNode>] = input.map {
                disparity ? [\.$video: $0, \.$disparity: map] : [\.$video: $0]
            }
            let connected: Set<String> =
                disparity ? ["stabilized-video", "stabilized-disparity"] : ["stabilized-video"]
            let (packets, _) = try stabilize(frames, parameters: parameters, connected: connected)
            return try zip(input, packets).map { source, p in
                let out = try #require(p[\.$stabilizedVideo])
                return try estimator.estimate(from: source, to: out).rotation
            }
        }
        // auto with a disparity map: stereo-safe.
        let safe = try rotations(["mode": "cinematic"], disparity: true)
        #expect(safe.allSatisfy { abs($0) < 0.003 }, "\(safe.map { abs($0) }.max()!)")
        // auto without disparity: roll is corrected; `on` forbids it even then.
        let free = try rotations(["mode": "cinematic"], disparity: false)
        #expect(free.contains { abs($0) > 0.008 }, "\(free.map { abs($0) }.max()!)")
        let forced = try rotations(["mode": "cinematic", "stereo-safe": "on"], disparity: false)
        #expect(forced.allSatisfy { abs($0) < 0.003 }, "\(forced.map { abs($0) }.max()!)")
    }

    @Test func lookaheadGivenAsADurationIsHeldAndFlushed() throws {
        let gen = try shakyClip {
            $0.width = 160; $0.height = 90; $0.frameCount = 12
        }
        var h = try NodeHarness(StabilizerNode.self, parameters: ["mode": "cinematic", "lookahead": "0.5s"])
        try h.start()
        var counts: [Int] = []
        for t in 0..<12 {
            counts.append(try h.process([\.$video: gen.frame(at: t)], at: Timestamp(frame: t, fps: 10)).count)
        }
        // 0.5 s at 10 fps = 5 frames held.
        #expect(counts == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
        let flushed = try h.finish()
        #expect(flushed.map(\.timestamp) == (7..<12).map { Timestamp(frame: $0, fps: 10) })
        // A single frame is flushed too.
        var one = try NodeHarness(StabilizerNode.self, parameters: ["lookahead": "1s"])
        #expect(try one.process([\.$video: gen.frame(at: 0)], at: .zero).isEmpty)
        #expect(try one.finish().count == 1)
    }

    @Test func badInputIsAClearError() throws {
        // (A zero-size frame cannot be built — `Image` refuses it — so the stabilizer's own check
        // is tested in CineVisionTests.)
        // A lookahead that cannot be held for 1080p frames within the memory limit.
        var big = try NodeHarness(StabilizerNode.self, parameters: ["mode": "cinematic", "memory-limit": "64"])
        do {
            _ = try big.process([\.$video: Image(width: 1920, height: 1080, format: .i420)])
            Issue.record("a 30-frame lookahead of 1080p frames in 64 MB should fail")
        } catch let e as ParameterError {
            #expect(e.parameter == "lookahead")
            #expect(e.message.contains("1920x1080") && e.message.contains("64 MB"), "\(e.message)")
        }
        // Out of range at load time.
        do {
            _ = try NodeHarness(StabilizerNode.self, parameters: ["lookahead": "30s"])
            Issue.record("a 30 s lookahead was taken")
        } catch {
            #expect("\(error)".contains("lookahead") && "\(error)".contains("0s...20s"), "\(error)")
        }
        #expect(throws: (any Error).self) { try NodeHarness(StabilizerNode.self, parameters: ["mode": "cinematc"]) }
        // A frame of another size in the middle of the stream, and a format the warp cannot read.
        var mixed = try NodeHarness(StabilizerNode.self, parameters: ["mode": "standard"])
        _ = try mixed.process([\.$video: grayFrame(64, 48)], at: .zero)
        #expect(throws: StabilizationError.sizeMismatch(expectedWidth: 64, expectedHeight: 48, width: 32, height: 48)) {
            _ = try mixed.process([\.$video: grayFrame(32, 48)], at: Timestamp(frame: 1, fps: 30))
        }
        // A format the node does not declare never reaches it (the harness holds it to its declaration).
        var rgba = try NodeHarness(StabilizerNode.self)
        #expect(throws: ImageFormatError(input: "video", got: .rgba8, takes: [.i420, .gray8])) {
            _ = try rgba.process([\.$video: Image(width: 64, height: 48, format: .rgba8)])
        }
    }

    /// The focus node decides before the stabilizer crops: its `crop` must be the mode's (or 0).
    /// A mismatch is refused when the graph loads, at the focus node's `crop` line.
    @Test(arguments: [("cinematic", "0.12", nil), ("cinematic", "0", nil), ("cinematic-extended", "0.12", "f.conf:4:")])
    func aFocusCropThatIsNotTheStabilizersIsRefusedAtLoad(_ mode: String, _ crop: String, _ error: String?) {
        let text = """
            nodes:
              camera: { kind: synthetic, size: 320x180, duration: 1s }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity,
                       crop: \(crop) }
              steady: { kind: stabilizer, video: camera.left, focus: focus.focus, mode: \(mode) }
              out: { kind: frames, video: steady.stabilized-video, path: /tmp/never/%05d.png }
            """
        do {
            _ = try Graph.parse(text, file: "f.conf", registry: .standard())
            #expect(error == nil, "loaded")
        } catch let e as ConfigErrors {
            #expect(e.errors.count == 1 && e.errors[0].key == "nodes.focus.crop", "\(e)")
            #expect(error.map { e.errors[0].description.contains($0) } == true, "\(e)")
            #expect(e.errors[0].description.contains("crops 0.18 away"), "\(e)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
