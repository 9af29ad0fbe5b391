// CameraPathSmoother: turns per-frame motion into per-frame corrections — accumulates the camera
// path, fits a smooth path over a lookahead window, and clamps each correction so the cropped
// output never shows anything outside the captured frame.

import Foundation

/// Smooths the camera path over a lookahead window and emits one ``StabilizationCorrection`` per
/// frame, ``lookahead`` frames after the frame arrived.
///
/// **Path.** The cumulative motion `C_t = M_t ∘ … ∘ M_1` (frame 0 → frame t) is kept as four
/// parameters: shift x, shift y, rotation, log scale.
///
/// **Smoothing.** Each parameter is fitted, around each frame, with a *Gaussian-weighted local
/// linear regression* (a degree-1 LOESS) over `t − R … t + R`, `R` = lookahead, σ = R / 3. Why
/// this rather than a plain Gaussian average: a local line reproduces any constant-velocity pan
/// exactly — with no lag and no shortening at the clip's start and end, where the window is cut —
/// so intended pans are kept, while its frequency response still falls like the Gaussian's
/// (`≈ exp(−2π²σ²f²)`), removing shake above ≈ 0.19 / σ cycles per frame. It needs only the
/// window, so it runs on a stream with bounded memory (`2R + 1` path samples). An L1-optimal
/// path (Grundmann et al. 2011) would give exactly static segments, at the cost of an LP solver.
///
/// **Crop constraint.** The correction for frame t is `W_t = S_t ∘ C_t⁻¹` (S = smoothed path),
/// followed by the zoom `1 / (1 − crop)`. If the zoomed output window would read outside the
/// captured frame, the correction is scaled back towards identity (bisection on the fraction of
/// the correction kept) until the output window's corners lie inside. Identity always fits, so
/// the result never shows outside pixels. The kept fraction is eased (at most `2 / lookahead`
/// change per frame), starting to fall before a clamped frame within the lookahead, so a clamp
/// shows as a gentle return towards the raw path rather than a jump.
public struct CameraPathSmoother: Sendable {
    /// The longest lookahead accepted, in frames: at most `2·300 + 1` path samples are held.
    public static let maximumLookahead = 300

    /// Frame width in pixels.
    public let frameWidth: Int
    /// Frame height in pixels.
    public let frameHeight: Int
    /// Frames of lookahead (and latency); the window is this many frames each side.
    public let lookahead: Int
    /// Standard deviation of the Gaussian weights, in frames.
    public let sigma: Double
    /// Fraction of each dimension cropped away (the output is zoomed by `1 / (1 − cropFraction)`).
    public let cropFraction: Double
    /// Whether corrections may rotate the frame. `false` (*stereo-safe*) keeps every correction a
    /// shift and a uniform zoom, so horizontal lines stay horizontal — what a disparity map and
    /// the epipolar geometry of a rectified stereo pair need. Roll shake is then left in.
    public let allowsRotation: Bool

    /// Path parameters (x, y, rotation, log scale) of frames `firstIndex ..< firstIndex + path.count`.
    private var path: [SIMD4<Double>] = []
    private var firstIndex = 0
    /// The cumulative transform of the last frame pushed.
    private var cumulative = SimilarityTransform.identity
    private var framesPushed = 0
    private var framesEmitted = 0
    /// The fraction of the correction kept for the last frame emitted (see ``correction(for:)``).
    private var lastFraction = 1.0
    /// Gaussian weights `exp(−d² / 2σ²)` for `d = 0 … lookahead`.
    private let weights: [Double]

    /// A smoother with the numbers of `mode` (see ``StabilizationMode``).
    public init(mode: StabilizationMode, frameWidth: Int, frameHeight: Int, allowsRotation: Bool = true) throws {
        try self.init(
            lookahead: mode.lookaheadFrames, sigma: max(mode.smoothingSigma, 1),
            cropFraction: mode.maxCropFraction, frameWidth: frameWidth, frameHeight: frameHeight,
            allowsRotation: allowsRotation)
    }

    /// A smoother with explicit numbers. Throws for an empty frame, a lookahead beyond
    /// ``maximumLookahead``, a non-positive σ or a crop outside `0 ..< 0.5`.
    public init(
        lookahead: Int, sigma: Double, cropFraction: Double, frameWidth: Int, frameHeight: Int,
        allowsRotation: Bool = true
    ) throws {
        guard frameWidth > 0, frameHeight > 0 else {
            throw StabilizationError.emptyFrame(width: frameWidth, height: frameHeight)
        }
        guard lookahead >= 0 else {
            throw StabilizationError.invalidSetting(
                field: "lookahead", message: "is \(lookahead); must be 0 or more frames")
        }
        guard lookahead <= CameraPathSmoother.maximumLookahead else {
            throw StabilizationError.lookaheadTooLong(frames: lookahead, limit: CameraPathSmoother.maximumLookahead)
        }
        guard sigma > 0, sigma.isFinite else {
            throw StabilizationError.invalidSetting(
                field: "sigma", message: "is \(sigma); must be a positive number of frames")
        }
        guard cropFraction >= 0, cropFraction < 0.5 else {
            throw StabilizationError.invalidSetting(
                field: "cropFraction", message: "is \(cropFraction); use 0 … 0.5 (exclusive)")
        }
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.lookahead = lookahead
        self.sigma = sigma
        self.cropFraction = cropFraction
        self.allowsRotation = allowsRotation
        weights = (0...lookahead).map { d in exp(-Double(d * d) / (2 * sigma * sigma)) }
    }

    /// The output zoom, `1 / (1 − cropFraction)`.
    public var zoom: Double { 1 / (1 - cropFraction) }

    /// Feeds the motion of the next frame from the one before (``SimilarityTransform/identity``
    /// for the first frame); returns the corrections that became final — none until ``lookahead``
    /// more frames have arrived, then one per call.
    public mutating func push(_ motionFromPrevious: SimilarityTransform) -> [StabilizationCorrection] {
        cumulative = framesPushed == 0 ? .identity : motionFromPrevious.after(cumulative)
        var params = SIMD4(cumulative.dx, cumulative.dy, cumulative.rotation, log(cumulative.scale))
        if let last = path.last {  // unwrap the rotation so the path is continuous
            var d = params[2] - last[2]
            d -= 2 * Double.pi * (d / (2 * Double.pi)).rounded()
            params[2] = last[2] + d
        }
        path.append(params)
        framesPushed += 1
        var out: [StabilizationCorrection] = []
        while framesEmitted + lookahead < framesPushed {
            out.append(correction(for: framesEmitted))
            framesEmitted += 1
            trim()
        }
        return out
    }

    /// Emits the corrections of the frames still waiting for lookahead (at the end of a stream).
    public mutating func finish() -> [StabilizationCorrection] {
        var out: [StabilizationCorrection] = []
        while framesEmitted < framesPushed {
            out.append(correction(for: framesEmitted))
            framesEmitted += 1
            trim()
        }
        return out
    }

    /// Corrections for a whole clip at once: `motions[i]` is the motion into frame `i`
    /// (`motions[0]` is ignored).
    public func corrections(for motions: [SimilarityTransform]) -> [StabilizationCorrection] {
        var copy = self
        var out: [StabilizationCorrection] = []
        out.reserveCapacity(motions.count)
        for m in motions { out += copy.push(m) }
        out += copy.finish()
        return out
    }

    /// Drops path samples no future window needs.
    private mutating func trim() {
        let keepFrom = framesEmitted - lookahead
        let drop = keepFrom - firstIndex
        if drop > 64 || (drop > 0 && path.count > 4 * lookahead + 64) {
            path.removeFirst(drop)
            firstIndex += drop
        }
    }

    private func transform(_ p: SIMD4<Double>) -> SimilarityTransform {
        SimilarityTransform(dx: p[0], dy: p[1], rotation: p[2], scale: exp(p[3]))
    }

    /// The correction of frame `t` in parameter space (x, y, rotation, log scale): the local
    /// linear fit around `t` (over the frames received so far) minus the raw path.
    ///
    /// Cost: `2R + 1` weighted samples of 4 parameters (≈ 20 flops each, weights from a table).
    private func correctionParameters(for t: Int) -> SIMD4<Double> {
        let raw = path[t - firstIndex]
        let lo = max(firstIndex, t - lookahead), hi = min(firstIndex + path.count - 1, t + lookahead)
        var s0 = 0.0, s1 = 0.0, s2 = 0.0
        var sy = SIMD4<Double>.zero, sty = SIMD4<Double>.zero
        for i in lo...hi {
            let d = Double(i - t), w = weights[abs(i - t)]
            let y = path[i - firstIndex]
            s0 += w
            s1 += w * d
            s2 += w * d * d
            sy += w * y
            sty += (w * d) * y
        }
        let det = s0 * s2 - s1 * s1
        let smooth = det > 1e-9 * s0 * s0 ? (s2 * sy - s1 * sty) / det : sy / s0
        let full = transform(smooth).after(transform(raw).inverse)
        return SIMD4(full.dx, full.dy, allowsRotation ? full.rotation : 0, log(full.scale))
    }

    /// The correction `parameters · fraction` for frame `t`.
    private func scaled(_ parameters: SIMD4<Double>, _ fraction: Double, _ t: Int) -> StabilizationCorrection {
        StabilizationCorrection(frameIndex: t, stabilizing: transform(parameters * fraction), zoom: zoom)
    }

    /// The largest fraction (0 … 1) of a correction that keeps the crop window inside the frame
    /// (bisection; the fractions that fit form an interval from 0 since identity fits).
    private func feasibleFraction(_ parameters: SIMD4<Double>, upTo limit: Double = 1) -> Double {
        if scaled(parameters, limit, 0).staysInside(width: frameWidth, height: frameHeight, margin: 0.5) {
            return limit
        }
        var lo = 0.0, hi = limit
        for _ in 0..<24 {
            let mid = 0.5 * (lo + hi)
            if scaled(parameters, mid, 0).staysInside(width: frameWidth, height: frameHeight, margin: 0.5) {
                lo = mid
            } else {
                hi = mid
            }
        }
        return lo
    }

    /// The final correction of frame `t`: the smoothing correction, scaled back where the crop
    /// window would leave the frame — and eased: the kept fraction moves by at most `1 / E` per
    /// frame (`E` = lookahead / 2), falling ahead of a clamped frame it can see in its lookahead
    /// and recovering after it, so a clamp never shows as a jump.
    private mutating func correction(for t: Int) -> StabilizationCorrection {
        if lookahead == 0 { return StabilizationCorrection(frameIndex: t, stabilizing: .identity, zoom: zoom) }
        let parameters = correctionParameters(for: t)
        let ease = Double(max(1, lookahead / 2))
        var fraction = min(feasibleFraction(parameters), lastFraction + 1 / ease)
        let last = firstIndex + path.count - 1
        var k = t + 1
        while k <= last, Double(k - t) / ease < fraction {
            fraction = min(fraction, feasibleFraction(correctionParameters(for: k)) + Double(k - t) / ease)
            k += 1
        }
        fraction = feasibleFraction(parameters, upTo: max(0, fraction))
        lastFraction = fraction
        return scaled(parameters, fraction, t)
    }
}
