// StabilizationJitterMeter: how much shake a clip shows — one metric, run the same way on the
// input, on our output and on any other stabilizer's output (the benchmark's vid.stab and
// deshake), so their figures compare.

import CineMedia
import CineVision
import Foundation

/// Measures the residual jitter of a clip from its frames.
///
/// **Metric.** The frame-to-frame motion is estimated with ``MotionEstimator`` and accumulated
/// into the content path `P_t` (shift x, y and rotation). Intended motion is the path's local
/// trend — a Gaussian-weighted local line with σ = ``highPassSigma`` frames (a pan passes
/// unchanged, at the ends too) — and the jitter is what is left: `H_t = P_t − trend_t`.
/// ``Result-swift.struct/jitter`` is the RMS over the clip of the frame-to-frame change of the
/// high-passed shift, `|H_t − H_{t−1}|`, in pixels per frame: the shake a viewer sees, in the
/// clip's own (output) pixels. ``Result-swift.struct/crop`` compares the clip with its source,
/// when given, by the scale between them.
public struct StabilizationJitterMeter: Sendable {
    /// What the meter found.
    public struct Result: Sendable, Equatable, CustomStringConvertible {
        /// Frames measured.
        public var frames: Int
        /// RMS frame-to-frame change of the high-passed shift, pixels per frame.
        public var jitter: Double
        /// RMS frame-to-frame change of the high-passed rotation, degrees per frame.
        public var rotationJitter: Double
        /// RMS of the high-passed shift itself, pixels.
        public var wobble: Double
        /// Mean content velocity (the pan), pixels per frame.
        public var meanVelocityX: Double
        /// Mean vertical content velocity, pixels per frame.
        public var meanVelocityY: Double

        public var description: String {
            String(
                format: "jitter %.3f px/frame (rotation %.4f°/frame), wobble %.2f px, pan (%.2f, %.2f) px/frame",
                jitter, rotationJitter, wobble, meanVelocityX, meanVelocityY)
        }
    }

    /// σ in frames of the trend taken out as intended motion.
    public let highPassSigma: Double
    private var estimator: MotionEstimator
    private var motions: [SimilarityTransform] = []

    /// A meter with the given trend width and estimator settings.
    public init(highPassSigma: Double = 10, estimator: MotionEstimator.Configuration = .init()) throws {
        guard highPassSigma > 0, highPassSigma.isFinite else {
            throw StabilizationError.invalidSetting(
                field: "highPassSigma", message: "must be a positive number of frames")
        }
        self.highPassSigma = highPassSigma
        self.estimator = try MotionEstimator(configuration: estimator)
    }

    /// Feeds the next frame of the clip.
    public mutating func push(_ frame: Image) throws {
        let m = try estimator.push(frame)
        motions.append(m ?? .identity)
    }

    /// The motions measured so far (`[0]` is identity).
    public var measuredMotions: [SimilarityTransform] { motions }

    /// The metric over the frames pushed so far.
    public var result: Result { StabilizationJitterMeter.measure(motions: motions, highPassSigma: highPassSigma) }

    /// The metric for known frame-to-frame motions (`motions[i]` carries frame i − 1 to i;
    /// `motions[0]` is ignored).
    public static func measure(motions: [SimilarityTransform], highPassSigma: Double = 10) -> Result {
        let n = motions.count
        guard n >= 3 else {
            return Result(frames: n, jitter: 0, rotationJitter: 0, wobble: 0, meanVelocityX: 0, meanVelocityY: 0)
        }
        var path: [SIMD3<Double>] = []
        path.reserveCapacity(n)
        var c = SimilarityTransform.identity
        var lastRotation = 0.0
        for (i, m) in motions.enumerated() {
            if i > 0 { c = m.after(c) }
            var r = c.rotation
            r = lastRotation + remainder(r - lastRotation, 2 * .pi)
            lastRotation = r
            path.append(SIMD3(c.dx, c.dy, r))
        }
        let radius = max(1, Int((3 * highPassSigma).rounded(.up)))
        var high: [SIMD3<Double>] = []
        high.reserveCapacity(n)
        for t in 0..<n {
            let lo = max(0, t - radius), hi = min(n - 1, t + radius)
            var s0 = 0.0, s1 = 0.0, s2 = 0.0
            var sy = SIMD3<Double>.zero, sty = SIMD3<Double>.zero
            for i in lo...hi {
                let d = Double(i - t), w = exp(-d * d / (2 * highPassSigma * highPassSigma))
                s0 += w
                s1 += w * d
                s2 += w * d * d
                sy += w * path[i]
                sty += (w * d) * path[i]
            }
            let det = s0 * s2 - s1 * s1
            let trend = det > 1e-9 * s0 * s0 ? (s2 * sy - s1 * sty) / det : sy / s0
            high.append(path[t] - trend)
        }
        var sumStep = 0.0, sumRotation = 0.0, sumWobble = 0.0
        for t in 1..<n {
            let d = high[t] - high[t - 1]
            sumStep += d.x * d.x + d.y * d.y
            sumRotation += d.z * d.z
        }
        for h in high { sumWobble += h.x * h.x + h.y * h.y }
        let steps = Double(n - 1)
        return Result(
            frames: n, jitter: (sumStep / steps).squareRoot(),
            rotationJitter: (sumRotation / steps).squareRoot() * 180 / .pi,
            wobble: (sumWobble / Double(n)).squareRoot(),
            meanVelocityX: (path[n - 1].x - path[0].x) / steps, meanVelocityY: (path[n - 1].y - path[0].y) / steps)
    }

    /// The fraction of each dimension a stabilized frame gives up relative to its source frame
    /// (`1 − 1 / scale` of the motion between them; 0 when no motion is found).
    public static func crop(source: Image, output: Image, estimator: MotionEstimator.Configuration = .init()) throws
        -> Double
    {
        var settings = estimator
        settings.pyramidLevels = max(settings.pyramidLevels, 5)  // a 20 % zoom moves the edges far
        let m = try MotionEstimator(configuration: settings).estimate(from: source, to: output)
        return max(0, 1 - 1 / m.scale)
    }
}
