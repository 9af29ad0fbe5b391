// Stabilizer tests: motion estimation against the exact motion of synthetic shaky clips, path
// smoothing (jitter removed, pans kept, crop never exposes outside pixels), the warp, errors and
// determinism.
import CineTestSupport
import CineMedia
@testable import CineVision
import Foundation
import Testing

/// The cumulative content path (frame 0 → frame t) of a list of per-frame motions.
private func cumulativePath(_ motions: [SimilarityTransform]) -> [SimilarityTransform] {
    var c = SimilarityTransform.identity
    return motions.enumerated().map { i, m in
        if i > 0 { c = m.after(c) }
        return c
    }
}

/// Frame-to-frame velocity of a path's translation: mean, and RMS deviation from the mean
/// (the jitter left once a steady pan is taken out).
private func velocityStatistics(_ path: [SimilarityTransform]) -> (meanX: Double, meanY: Double, jitter: Double) {
    let v = (1..<path.count).map { SIMD2(path[$0].dx - path[$0 - 1].dx, path[$0].dy - path[$0 - 1].dy) }
    let mean = v.reduce(SIMD2<Double>(0, 0), +) / Double(v.count)
    let ms = v.map { ($0 - mean) * ($0 - mean) }.reduce(SIMD2<Double>(0, 0), +) / Double(v.count)
    return (mean.x, mean.y, (ms.x + ms.y).squareRoot())
}

/// The path the stabilized output shows: each frame's correction after its true camera path.
private func stabilizedPath(_ corrections: [StabilizationCorrection], _ truth: [SimilarityTransform])
    -> [SimilarityTransform]
{
    zip(corrections, truth).map { $0.stabilizing.after($1) }
}

private func clip(_ edit: (inout ShakyClipGenerator.Configuration) -> Void) throws -> ShakyClipGenerator {
    var c = ShakyClipGenerator.Configuration()
    edit(&c)
    return try ShakyClipGenerator(configuration: c)
}

@Test func estimatorRecoversKnownShifts() throws {
    let gen = try clip {
        $0.width = 320; $0.height = 180; $0.frameCount = 12; $0.jitterAmplitude = 4; $0.panX = 1.3
    }
    let estimator = try MotionEstimator()
    for (i, j) in [(0, 1), (3, 4), (5, 9)] {
        let m = try estimator.estimate(from: gen.frame(at: i), to: gen.frame(at: j))
        let truth = gen.motion(from: i, to: j)
        #expect(abs(m.dx - truth.dx) < 0.2, "frame \(i)→\(j): \(m) vs \(truth)")
        #expect(abs(m.dy - truth.dy) < 0.2, "frame \(i)→\(j): \(m) vs \(truth)")
        #expect(abs(m.rotation) < 0.002)
        #expect(abs(m.scale - 1) < 0.002)
    }
}

@Test func estimatorRecoversKnownRotations() throws {
    let gen = try clip {
        $0.width = 320; $0.height = 180; $0.frameCount = 12; $0.rotationJitter = 0.03
    }
    let estimator = try MotionEstimator()
    for (i, j) in [(0, 2), (4, 7)] {
        let m = try estimator.estimate(from: gen.frame(at: i), to: gen.frame(at: j))
        let truth = gen.motion(from: i, to: j)
        #expect(abs(truth.rotation) > 0.005, "the test pair should rotate")
        #expect(abs(m.rotation - truth.rotation) < 0.0015, "frame \(i)→\(j): \(m) vs \(truth)")
        #expect(abs(m.dx - truth.dx) < 0.3 && abs(m.dy - truth.dy) < 0.3, "frame \(i)→\(j): \(m) vs \(truth)")
    }
}

@Test func estimatorReportsDownscaledMotionInFullResolutionPixels() throws {
    let gen = try clip {
        $0.width = 480; $0.height = 270; $0.frameCount = 4; $0.jitterAmplitude = 6
    }
    var config = MotionEstimator.Configuration()
    config.analysisWidth = 160
    let m = try MotionEstimator(configuration: config).estimate(from: gen.frame(at: 0), to: gen.frame(at: 2))
    let truth = gen.motion(from: 0, to: 2)
    #expect(abs(m.dx - truth.dx) < 0.5 && abs(m.dy - truth.dy) < 0.5, "\(m) vs \(truth)")
}

@Test func estimatorIsDeterministicAndStreamsLikePairs() throws {
    let gen = try clip { $0.frameCount = 4 }
    let frames = (0..<4).map { gen.frame(at: $0) }
    var streaming = try MotionEstimator()
    let pair = try MotionEstimator()
    #expect(try streaming.push(frames[0]) == nil)
    for t in 1..<4 {
        let streamed = try streaming.push(frames[t])
        #expect(streamed == (try pair.estimate(from: frames[t - 1], to: frames[t])))
        #expect(streaming.lastInlierCount >= 6)
    }
}

@Test func flatFramesGiveIdentityMotion() throws {
    let a = Image(width: 64, height: 48, format: .gray8)
    a.plane(0).fill(byte: 90)
    let m = try MotionEstimator().estimate(from: a, to: a)
    #expect(m == .identity)
}

@Test func mismatchedOrUnsupportedFramesAreClearErrors() throws {
    let estimator = try MotionEstimator()
    let a = Image(width: 64, height: 48, format: .i420), b = Image(width: 66, height: 48, format: .i420)
    #expect(throws: StabilizationError.sizeMismatch(expectedWidth: 64, expectedHeight: 48, width: 66, height: 48)) {
        try estimator.estimate(from: a, to: b)
    }
    #expect(throws: StabilizationError.formatMismatch(expected: "i420", got: "gray8")) {
        try estimator.estimate(from: a, to: Image(width: 64, height: 48, format: .gray8))
    }
    let rgba = Image(width: 64, height: 48, format: .rgba8)
    #expect(throws: StabilizationError.self) { try estimator.estimate(from: rgba, to: rgba) }
    #expect(throws: StabilizationError.self) { try StabilizationWarp().apply(.identity(frameIndex: 0), to: rgba) }
    var bad = MotionEstimator.Configuration()
    bad.pyramidLevels = 0
    #expect(throws: StabilizationError.self) { try MotionEstimator(configuration: bad) }
}

@Test func zeroSizeFramesAndOverlongLookaheadAreClearErrors() throws {
    #expect(throws: StabilizationError.emptyFrame(width: 0, height: 90)) {
        try CameraPathSmoother(mode: .cinematic, frameWidth: 0, frameHeight: 90)
    }
    #expect(throws: StabilizationError.lookaheadTooLong(frames: 301, limit: 300)) {
        try CameraPathSmoother(lookahead: 301, sigma: 100, cropFraction: 0.1, frameWidth: 160, frameHeight: 90)
    }
    #expect(throws: StabilizationError.emptyFrame(width: 0, height: 0)) {
        try clip {
            $0.width = 0; $0.height = 0
        }
    }
    let message = StabilizationError.lookaheadTooLong(frames: 301, limit: 300).description
    #expect(message.contains("301") && message.contains("300"))
}

@Test func modesIncreaseSmoothingCropAndLookahead() {
    let modes = StabilizationMode.allCases
    for (a, b) in zip(modes, modes.dropFirst()) {
        #expect(a.lookaheadFrames < b.lookaheadFrames)
        #expect(a.maxCropFraction < b.maxCropFraction)
    }
    #expect(StabilizationMode(argumentName: "cinematic-extended") == .cinematicExtended)
}

@Test(arguments: [StabilizationMode.standard, .cinematic, .cinematicExtended, .cinematicExtendedEnhanced])
func smoothingRemovesMostJitter(mode: StabilizationMode) throws {
    let gen = try clip {
        $0.frameCount = 240; $0.jitterAmplitude = 2.5; $0.rotationJitter = 0.004
    }
    let motions = gen.motions
    let truth = cumulativePath(motions)
    let corrections = try CameraPathSmoother(mode: mode, frameWidth: 160, frameHeight: 90).corrections(for: motions)
    #expect(corrections.count == 240)
    #expect(corrections.map(\.frameIndex) == Array(0..<240))
    let before = velocityStatistics(truth).jitter
    let after = velocityStatistics(stabilizedPath(corrections, truth)).jitter
    #expect(after < 0.2 * before, "\(mode): jitter \(before) → \(after) px/frame")
    let rotationBefore = (1..<240).map { abs(truth[$0].rotation - truth[$0 - 1].rotation) }.max()!
    let stable = stabilizedPath(corrections, truth)
    let rotationAfter = (1..<240).map { abs(stable[$0].rotation - stable[$0 - 1].rotation) }.max()!
    #expect(rotationAfter < 0.3 * rotationBefore)
}

@Test func steadyPanIsPreserved() throws {
    let gen = try clip {
        $0.frameCount = 200; $0.jitterAmplitude = 2.5; $0.panX = 1.5; $0.panY = -0.4
    }
    let motions = gen.motions
    let truth = cumulativePath(motions)
    let corrections = try CameraPathSmoother(mode: .cinematicExtended, frameWidth: 160, frameHeight: 90)
        .corrections(for: motions)
    let input = velocityStatistics(truth), output = velocityStatistics(stabilizedPath(corrections, truth))
    // The content moves opposite to the window: −1.5, +0.4 px per frame.
    #expect(abs(output.meanX - input.meanX) < 0.03 * abs(input.meanX), "pan \(input.meanX) → \(output.meanX)")
    #expect(abs(output.meanY - input.meanY) < 0.05, "pan \(input.meanY) → \(output.meanY)")
    #expect(output.jitter < 0.2 * input.jitter, "jitter \(input.jitter) → \(output.jitter)")
    // Mid-clip the stabilized camera moves at the pan speed, frame after frame.
    let stable = stabilizedPath(corrections, truth)
    for t in 60..<140 { #expect(abs(stable[t].dx - stable[t - 1].dx - input.meanX) < 0.25) }
}

@Test(arguments: [StabilizationMode.standard, .cinematicExtendedEnhanced])
func cropNeverExposesOutsidePixels(mode: StabilizationMode) throws {
    // Jitter far larger than the crop margin forces the clamp on many frames.
    let gen = try clip {
        $0.frameCount = 150; $0.jitterAmplitude = 14; $0.rotationJitter = 0.03; $0.jitterBand = 0.5...3
    }
    let corrections = try CameraPathSmoother(mode: mode, frameWidth: 160, frameHeight: 90).corrections(for: gen.motions)
    var clampedAway = 0
    for c in corrections {
        let b = c.sampledSourceBounds(width: 160, height: 90)
        #expect(b.minX >= 0 && b.minY >= 0 && b.maxX <= 159 && b.maxY <= 89, "frame \(c.frameIndex): \(b)")
        if c.stabilizing != .identity { clampedAway += 1 }
    }
    #expect(clampedAway > 100, "most frames should still be corrected")
}

@Test func warpedCornersShowTheFramePixelsTheyMapTo() throws {
    // Luma = x + y is linear, so bilinear sampling reproduces it exactly wherever the warp reads
    // inside the frame; had a corner needed a pixel outside, the clamp to the border would make
    // its value differ from x + y at the unclamped source position.
    let gen = try clip {
        $0.frameCount = 90
        $0.jitterAmplitude = 10
        $0.jitterBand = 0.5...3
    }
    let corrections = try CameraPathSmoother(mode: .cinematic, frameWidth: 160, frameHeight: 90).corrections(
        for: gen.motions)
    let frame = Image(width: 160, height: 90, format: .gray8)
    for y in 0..<90 { for x in 0..<160 { frame.plane(0).row(y, as: UInt8.self)[x] = UInt8(x + y) } }
    let warp = StabilizationWarp()
    for c in corrections where c.frameIndex % 5 == 0 {
        let out = try warp.apply(c, to: frame)
        let map = c.sourceFromOutput
        for (x, y) in [(0, 0), (159, 0), (0, 89), (159, 89)] {
            let p = map.apply(x: Double(x) + 0.5 - 80, y: Double(y) + 0.5 - 45)
            let expected = (p.x + 80 - 0.5) + (p.y + 45 - 0.5)
            let got = Double(out.plane(0).row(y, as: UInt8.self)[x])
            #expect(abs(got - expected) <= 1, "frame \(c.frameIndex) corner (\(x), \(y)): \(got) vs \(expected)")
        }
    }
}

@Test func warpUndoesAKnownMotion() throws {
    let gen = try clip {
        $0.frameCount = 8; $0.jitterAmplitude = 3; $0.rotationJitter = 0.02
    }
    let source = gen.frame(at: 5), reference = gen.frame(at: 0)
    // Carry frame 5 back onto frame 0: its correction is the inverse of the motion 0 → 5.
    let correction = StabilizationCorrection(frameIndex: 5, stabilizing: gen.motion(from: 0, to: 5).inverse, zoom: 1)
    let out = try StabilizationWarp().apply(correction, to: source)
    for p in 0..<3 {
        let a = out.plane(p), b = reference.plane(p)
        var error = 0, count = 0
        let m = p == 0 ? 12 : 6
        for y in m..<(a.height - m) {
            for x in m..<(a.width - m) {
                error += abs(Int(a.row(y, as: UInt8.self)[x]) - Int(b.row(y, as: UInt8.self)[x]))
                count += 1
            }
        }
        #expect(Double(error) / Double(count) < 4, "plane \(p): mean error \(Double(error) / Double(count))")
    }
}

@Test func identityCorrectionCopiesTheFrame() throws {
    let gen = try clip { $0.frameCount = 1 }
    let frame = gen.frame(at: 0)
    let out = try StabilizationWarp().apply(.identity(frameIndex: 0), to: frame)
    for p in 0..<3 {
        for y in 0..<frame.plane(p).height {
            #expect(memcmp(out.plane(p).row(y), frame.plane(p).row(y), frame.plane(p).width) == 0)
        }
    }
}

@Test func streamingSmootherEmitsAfterItsLookahead() throws {
    let gen = try clip { $0.frameCount = 50 }
    var smoother = try CameraPathSmoother(mode: .standard, frameWidth: 160, frameHeight: 90)
    var emitted: [StabilizationCorrection] = []
    for (t, m) in gen.motions.enumerated() {
        let out = smoother.push(m)
        #expect(out.count == (t >= 15 ? 1 : 0))
        emitted += out
    }
    emitted += smoother.finish()
    let offline = try CameraPathSmoother(mode: .standard, frameWidth: 160, frameHeight: 90).corrections(
        for: gen.motions)
    #expect(emitted == offline)
    let off = try CameraPathSmoother(mode: .off, frameWidth: 160, frameHeight: 90).corrections(for: gen.motions)
    #expect(off.allSatisfy { $0.stabilizing == .identity && $0.zoom == 1 })
}

@Test func estimatedMotionStabilizesAShakyClipEndToEnd() throws {
    let gen = try clip {
        $0.frameCount = 48; $0.jitterAmplitude = 3; $0.panX = 0.8
    }
    var estimator = try MotionEstimator()
    var smoother = try CameraPathSmoother(mode: .standard, frameWidth: 160, frameHeight: 90)
    var corrections: [StabilizationCorrection] = []
    for t in 0..<48 {
        let m = try estimator.push(gen.frame(at: t)) ?? .identity
        corrections += smoother.push(m)
    }
    corrections += smoother.finish()
    let truth = cumulativePath(gen.motions)
    let input = velocityStatistics(truth), output = velocityStatistics(stabilizedPath(corrections, truth))
    #expect(output.jitter < 0.3 * input.jitter, "jitter \(input.jitter) → \(output.jitter)")
    #expect(abs(output.meanX - input.meanX) < 0.1, "pan \(input.meanX) → \(output.meanX)")
    // Deterministic: a second run gives the same corrections.
    var again = try MotionEstimator()
    var smoother2 = try CameraPathSmoother(mode: .standard, frameWidth: 160, frameHeight: 90)
    var corrections2: [StabilizationCorrection] = []
    for t in 0..<48 { corrections2 += smoother2.push(try again.push(gen.frame(at: t)) ?? .identity) }
    corrections2 += smoother2.finish()
    #expect(corrections == corrections2)
}

@Test func generatorPosesMatchItsMotions() throws {
    let gen = try clip {
        $0.frameCount = 30; $0.panX = 2; $0.jitterAmplitude = 3
    }
    #expect(gen.pose(at: 0) == ShakyClipGenerator.Pose(x: 0, y: 0, rotation: 0))
    let path = cumulativePath(gen.motions)
    for t in [1, 10, 29] {
        let pose = gen.pose(at: t)
        #expect(abs(path[t].dx + pose.x) < 1e-9 && abs(path[t].dy + pose.y) < 1e-9)
        #expect(abs(pose.y) <= 6 + 1e-9)
    }
}

@Test func clampedCorrectionsEaseInsteadOfJumping() throws {
    // Shake of ±14 px against a crop margin of ±9.6 × 5.4 px: the clamp acts on many frames,
    // and the output must still move far less, and less abruptly, than the input.
    let gen = try clip {
        $0.frameCount = 240; $0.jitterAmplitude = 14; $0.jitterBand = 0.5...3; $0.rotationJitter = 0.01
    }
    let truth = cumulativePath(gen.motions)
    let corrections = try CameraPathSmoother(mode: .cinematic, frameWidth: 160, frameHeight: 90).corrections(
        for: gen.motions)
    let stable = stabilizedPath(corrections, truth)
    func steps(_ path: [SimilarityTransform]) -> [Double] {
        (1..<path.count).map {
            ((path[$0].dx - path[$0 - 1].dx) * (path[$0].dx - path[$0 - 1].dx)
                + (path[$0].dy - path[$0 - 1].dy) * (path[$0].dy - path[$0 - 1].dy)).squareRoot()
        }
    }
    let input = steps(truth), output = steps(stable)
    let rms = { (v: [Double]) in (v.map { $0 * $0 }.reduce(0, +) / Double(v.count)).squareRoot() }
    #expect(rms(output) < 0.45 * rms(input), "rms step \(rms(input)) → \(rms(output))")
    #expect(output.max()! < 0.5 * input.max()!, "largest step \(input.max()!) → \(output.max()!)")
    #expect(corrections.allSatisfy { $0.staysInside(width: 160, height: 90) })
}

/// A correction with shift, rotation and zoom that keeps a 160 × 90 crop inside the frame.
private let sampleCorrection = StabilizationCorrection(
    frameIndex: 0, stabilizing: SimilarityTransform(dx: 2.5, dy: -1.5, rotation: 0.01, scale: 1.01), zoom: 1.15)

@Test func disparityMapMovesWithTheVideo() throws {
    // Video luma and a half-resolution disparity map both hold the frame's x coordinate, so after
    // the warp both must hold the x coordinate their output position was read from.
    let frame = Image(width: 160, height: 90, format: .gray8)
    for y in 0..<90 { for x in 0..<160 { frame.plane(0).row(y, as: UInt8.self)[x] = UInt8(x) } }
    let values = Image(width: 80, height: 45, format: .float32)
    for v in 0..<45 {
        for u in 0..<80 { values.plane(0).row(v, as: Float.self)[u] = Float((Double(u) + 0.5) * 2 - 0.5) }
    }
    let confidence = Image(width: 80, height: 45, format: .gray8)
    confidence.plane(0).fill(byte: 200)
    let map = DisparityMap(values: values, confidence: confidence, referenceWidth: 160, referenceHeight: 90)
    let warp = StabilizationWarp()
    let video = try warp.apply(sampleCorrection, to: frame)
    let moved = try warp.apply(sampleCorrection, to: map)
    let back = sampleCorrection.sourceFromOutput
    let scale = sampleCorrection.outputFromSource.scale
    for y in stride(from: 0, to: 90, by: 7) {
        for x in stride(from: 0, to: 160, by: 9) {
            let expected = back.apply(x: Double(x) + 0.5 - 80, y: Double(y) + 0.5 - 45).x + 80 - 0.5
            #expect(abs(Double(video.plane(0).row(y, as: UInt8.self)[x]) - expected) <= 1)
        }
    }
    for v in stride(from: 0, to: 45, by: 4) {
        for u in stride(from: 0, to: 80, by: 5) {
            let expected = back.apply(x: (Double(u) + 0.5) * 2 - 80, y: (Double(v) + 0.5) * 2 - 45).x + 80 - 0.5
            let got = Double(moved.values.plane(0).row(v, as: Float.self)[u]) / scale
            #expect(abs(got - expected) < 0.01, "map (\(u), \(v)): \(got) vs \(expected)")
        }
    }
    #expect(moved.confidence?.plane(0).row(20, as: UInt8.self)[40] == 200)
    #expect(moved.referenceWidth == 160 && moved.referenceHeight == 90)
}

@Test func detectionBoundsMoveWithTheVideo() throws {
    // A bright square; its bounds in the warped frame match the moved detection rectangle.
    let frame = Image(width: 160, height: 90, format: .gray8)
    frame.plane(0).fill(byte: 20)
    for y in 30..<50 { for x in 60..<90 { frame.plane(0).row(y, as: UInt8.self)[x] = 240 } }
    let rect = NormalizedRect(x: 60.0 / 160, y: 30.0 / 90, width: 30.0 / 160, height: 20.0 / 90)
    let correction = StabilizationCorrection(
        frameIndex: 0, stabilizing: SimilarityTransform(dx: 4, dy: -3), zoom: 1.15)
    let out = try StabilizationWarp().apply(correction, to: frame)
    var minX = 160, maxX = -1, minY = 90, maxY = -1
    for y in 0..<90 {
        for x in 0..<160 where out.plane(0).row(y, as: UInt8.self)[x] > 130 {
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
    }
    let moved = correction.outputRect(rect, width: 160, height: 90)
    #expect(abs(moved.x * 160 - Double(minX)) < 1.5 && abs((moved.x + moved.width) * 160 - Double(maxX + 1)) < 1.5)
    #expect(abs(moved.y * 90 - Double(minY)) < 1.5 && abs((moved.y + moved.height) * 90 - Double(maxY + 1)) < 1.5)
}

@Test func aWarpWithoutRotationWritesTheSameBytesByRows() throws {
    // Stereo-safe corrections (shift and zoom) take the row path: each source row interpolated
    // once and shared. Same arithmetic, so the same bytes as the general per-sample path —
    // inside the frame, at its clamped borders, and for zooms out and in.
    let gen = try clip { $0.frameCount = 1 }
    let frame = gen.frame(at: 0)
    for (zoom, dx, dy) in [(1.22, 7.3, -4.6), (1.0, -30.25, 12.5), (0.8, 3.0, 0.0), (1.5, 200.7, -90.1)] {
        let map = SimilarityTransform(a: 1 / zoom, b: 0, dx: dx, dy: dy)
        for p in 0..<3 {
            let src = frame.plane(p)
            let byRows = Image(width: src.width, height: src.height, format: .gray8)
            let bySamples = Image(width: src.width, height: src.height, format: .gray8)
            let ratio = Double(src.width) / Double(frame.width)
            StabilizationWarpJob.warp(src, into: byRows.plane(0), rows: 0..<src.height, map: map, ratio: ratio,
                                      frameWidth: Double(frame.width), frameHeight: Double(frame.height))
            StabilizationWarpJob.warp(src, into: bySamples.plane(0), rows: 0..<src.height, map: map, ratio: ratio,
                                      frameWidth: Double(frame.width), frameHeight: Double(frame.height), rowPath: false)
            var differing = 0
            for y in 0..<src.height where memcmp(byRows.plane(0).row(y), bySamples.plane(0).row(y), src.width) != 0 { differing += 1 }
            #expect(differing == 0, "zoom \(zoom) shift (\(dx), \(dy)) plane \(p): \(differing) rows differ")
        }
    }
}
