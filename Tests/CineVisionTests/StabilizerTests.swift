// The streaming stabilizer and the jitter meter: frames and payloads come out in order and all
// of them, the memory bound, stereo-safe corrections, and the metric on known motions.
import CineTestSupport
import CineMedia
import CineVision
import Foundation
import Testing

private func clip(_ edit: (inout ShakyClipGenerator.Configuration) -> Void) throws -> ShakyClipGenerator {
    var c = ShakyClipGenerator.Configuration()
    edit(&c)
    return try ShakyClipGenerator(configuration: c)
}

@Test func stabilizerHoldsItsLookaheadAndReturnsEveryFrameInOrder() throws {
    let gen = try clip { $0.frameCount = 40 }
    var s = try Stabilizer<Int>(configuration: .init(mode: .standard), width: 160, height: 90, format: .i420)
    #expect(s.lookahead == 15)
    var out: [Stabilizer<Int>.Ready] = []
    for t in 0..<40 {
        let ready = try s.push(gen.frame(at: t), t * 10)
        #expect(ready.count == (t >= 15 ? 1 : 0))
        out += ready
    }
    #expect(s.heldCount == 15)
    out += s.finish()
    #expect(s.heldCount == 0)
    #expect(out.map(\.index) == Array(0..<40))
    #expect(out.map(\.payload) == (0..<40).map { $0 * 10 })
    #expect(out.allSatisfy { $0.correction.frameIndex == $0.index && abs($0.correction.zoom - 1 / 0.92) < 1e-12 })
}

@Test func stabilizerRefusesALookaheadBeyondItsMemoryBound() throws {
    var c = Stabilizer<Void>.Configuration(mode: .cinematicExtendedEnhanced)
    c.memoryLimitBytes = 100 * 1_048_576
    // 1080p I420 is 3 110 400 bytes: 100 MB hold 33 frames, a lookahead of 32.
    #expect(Stabilizer<Void>.maximumLookahead(bytesPerFrame: 3_110_400, memoryLimitBytes: c.memoryLimitBytes) == 32)
    #expect(throws: StabilizationError.lookaheadTooLong(frames: 60, limit: 32)) {
        try Stabilizer<Void>(configuration: c, width: 1920, height: 1080, format: .i420)
    }
    c.lookaheadFrames = 32
    _ = try Stabilizer<Void>(configuration: c, width: 1920, height: 1080, format: .i420)
    #expect(throws: StabilizationError.emptyFrame(width: 0, height: 1080)) {
        try Stabilizer<Void>(configuration: c, width: 0, height: 1080, format: .i420)
    }
}

@Test func stereoSafeCorrectionsAreShiftsAndZoomOnly() throws {
    let gen = try clip {
        $0.frameCount = 120; $0.rotationJitter = 0.02; $0.jitterAmplitude = 3
    }
    let free = try CameraPathSmoother(mode: .cinematic, frameWidth: 160, frameHeight: 90).corrections(for: gen.motions)
    let safe = try CameraPathSmoother(mode: .cinematic, frameWidth: 160, frameHeight: 90, allowsRotation: false)
        .corrections(for: gen.motions)
    #expect(free.contains { abs($0.stabilizing.rotation) > 0.005 })
    #expect(safe.allSatisfy { $0.stabilizing.b == 0 && $0.staysInside(width: 160, height: 90) })
    // The shift jitter is still removed.
    var c = SimilarityTransform.identity
    var truth: [SimilarityTransform] = []
    for (i, m) in gen.motions.enumerated() {
        if i > 0 { c = m.after(c) }
        truth.append(c)
    }
    let stable = zip(safe, truth).map {
        SimilarityTransform(a: 1, b: 0, dx: $0.stabilizing.after($1).dx, dy: $0.stabilizing.after($1).dy)
    }
    let before = StabilizationJitterMeter.measure(motions: zip(truth, [.identity] + truth).map { $0.after($1.inverse) })
    let after = StabilizationJitterMeter.measure(
        motions: zip(stable, [.identity] + stable).map { $0.after($1.inverse) })
    #expect(after.jitter < 0.35 * before.jitter, "\(before) → \(after)")
}

@Test func jitterMeterSeparatesShakeFromPan() throws {
    // A pure pan has no jitter, and its velocity is reported.
    let pan = [SimilarityTransform.identity] + Array(repeating: SimilarityTransform(dx: -1.5, dy: 0.5), count: 99)
    let steady = StabilizationJitterMeter.measure(motions: pan)
    #expect(steady.jitter < 1e-9 && steady.wobble < 1e-9)
    #expect(abs(steady.meanVelocityX + 1.5) < 1e-9 && abs(steady.meanVelocityY - 0.5) < 1e-9)
    // A 5 Hz sinusoidal shake of amplitude A at 30 fps steps by ≈ A·2π·5/30 per frame.
    let a = 2.0
    let positions = (0..<300).map { a * sin(2 * .pi * 5 * Double($0) / 30) }
    let shake =
        [SimilarityTransform.identity]
        + (1..<300).map { SimilarityTransform(dx: positions[$0] - positions[$0 - 1], dy: 0) }
    let r = StabilizationJitterMeter.measure(motions: shake)
    let expected = a * 2 * sin(.pi * 5 / 30) / 2.0.squareRoot()  // RMS of the sampled derivative
    #expect(abs(r.jitter - expected) < 0.05 * expected, "\(r.jitter) vs \(expected)")
    #expect(abs(r.wobble - a / 2.0.squareRoot()) < 0.05 * a)
}

@Test func jitterMeterOnFramesAgreesWithTheTrueMotion() throws {
    let gen = try clip {
        $0.width = 320; $0.height = 180; $0.frameCount = 60; $0.jitterAmplitude = 3; $0.panX = 1
    }
    var meter = try StabilizationJitterMeter()
    for t in 0..<60 { try meter.push(gen.frame(at: t)) }
    let measured = meter.result, truth = StabilizationJitterMeter.measure(motions: gen.motions)
    #expect(abs(measured.jitter - truth.jitter) < 0.1 * truth.jitter, "\(measured) vs \(truth)")
    #expect(abs(measured.meanVelocityX - truth.meanVelocityX) < 0.05)
    let zoomed = try StabilizationWarp().apply(
        StabilizationCorrection(frameIndex: 0, stabilizing: .identity, zoom: 1 / 0.82), to: gen.frame(at: 0))
    #expect(abs(try StabilizationJitterMeter.crop(source: gen.frame(at: 0), output: zoomed) - 0.18) < 0.005)
}
