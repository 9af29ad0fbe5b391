// GuidedDepthUpsampler: a low-resolution disparity map brought to the frame's resolution with its
// depth edges drawn by the frame's own edges — the fast guided filter (He & Sun, 2015) the matte
// already uses (MatteUpsampler's local linear model, disparity ≈ a·luma + b fitted at the map's
// resolution), applied at the frame's and clamped to what the map says nearby.
import CineMedia
import Foundation

/// Upsamples a disparity map to the frame's resolution, its outlines following the frame's.
///
/// A 320×180 map cannot say on which of the four frame pixels under a sample a person's outline
/// lies; the frame can. In each window of the map (``Settings/radius`` samples each side) the
/// disparity is modelled as a linear function of the frame's luma, `d ≈ a·I + b` (least squares;
/// ``Settings/epsilon`` keeps `a` near 0 where the luma is flat or the disparity does not follow
/// it) — the fit of ``MatteUpsampler``. Inside a surface of one depth `a` is 0 and the map is only
/// smoothed; across a depth edge whose two sides differ in luma, `a` carries the step, and at the
/// frame's resolution `a·I(x) + b` puts the step where the luma steps, to the pixel. Each pixel is
/// clamped to the range of the 3×3 samples around its nearest sample, so it never takes a depth
/// the map does not hold nearby.
///
/// A linear model draws an edge as a ramp as wide as the luma's own step, and blends the two
/// depths wherever the luma is between the two sides' brightness. Where a window of the map spans
/// a real step (more than ``Settings/snapSpan`` px) and the frame's luma explains it — the model's
/// r² (the squared correlation of the samples' mean luma and their disparity) is near 1 — the
/// pixel is pushed towards the nearer of the two depths it is clamped between, by r² raised to
/// ``Settings/snapPower``: a clean edge becomes a hard one, to the pixel. Where the map's samples
/// do not follow the frame (a wrong sample, a step inside one colour), r² is low and the soft ramp
/// stays: a hard edge one pixel off costs more than a ramp.
///
/// ```swift
/// let upsampler = GuidedDepthUpsampler()
/// let fine = upsampler.upsample(map, frame: left)   // the frame's size
/// ```
/// Cost: the fit at the map's resolution (one pass over the frame's luma, box sums at the map's
/// size) and one pass at the frame's resolution — two bilinear interpolations, a multiply-add and
/// a clamp a pixel, in row bands on ``Settings/threads`` cores (`CineBench depth` reports the
/// render's cost with and without it). It keeps its buffers between calls: use one upsampler
/// from one thread at a time.
public final class GuidedDepthUpsampler: @unchecked Sendable {
    /// The knobs of the upsampler.
    public struct Settings: Sendable, Hashable {
        /// Window radius, in map samples (1 = 3×3 samples, 12 px of a 720p frame from 320×180).
        /// Wider windows smooth the map as well: on the synthetic takes that gained up to 0.4 dB
        /// more, on the real Middlebury pair it cost detail (its exact disparity at the map's
        /// grid rendered 3 dB further from the exact render at radius 3, 0.8 dB at radius 1).
        public var radius = 1
        /// Regularisation, in (luma / 255)²: the larger, the less the luma shapes the map. With
        /// the snap (below) 0.0005 rendered the synthetic takes' edges 38.36 / 38.13 / 38.52 dB
        /// against 38.36 / 38.06 / 38.41 at 0.0002 (0.0001: 38.36 / 38.02 / 38.35; 0.002:
        /// 38.27 / 38.24 / 38.53 with more pixels off); the real Middlebury pair the same.
        public var epsilon: Float = 0.0005
        /// How strongly a step the frame's luma explains is made hard: each pixel moves towards
        /// the nearer end of its clamp range by r²^`snapPower` (r² of the 3×3 window around its
        /// nearest sample). 0 turns it off (the soft ramp everywhere). On the synthetic takes
        /// (`CineBench depth`, seeds 1–3, near the depth edges) 4 gave 38.36 / 38.06 / 38.41 dB
        /// against 37.84 / 38.11 / 37.84 without; 2 and 6 gave 38.40 / 37.95 / 38.40 and
        /// 38.30 / 38.10 / 38.35; the hard choice wherever the window spans a step, whatever
        /// r², 37.12 / 36.67 / 36.92 (docs/disparity.md has the table).
        public var snapPower: Float = 4
        /// The least span of a window's samples, in px of disparity, that counts as a step to
        /// snap: below it the map is a smooth surface and is only smoothed.
        public var snapSpan: Float = 4
        /// Cores for the pass at the frame's resolution.
        public var threads = 2
        /// The default settings.
        public init() {}
    }

    /// The settings of the next call.
    public var settings: Settings
    private var model = MatteUpsampler.Model()
    private let lows = BokehScratch<Float>(), highs = BokehScratch<Float>(), nearest = BokehScratch<Int32>()
    private let lumaRows = BokehScratch<UInt8>(), rowAB = BokehScratch<Float>(), snaps = BokehScratch<Float>()

    /// Creates an upsampler.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// `map` at `frame`'s size (float32), guided by `frame`'s luma (I420, NV12, gray8 or RGBA).
    /// Holes (`±inf`) are first filled as the renderer fills them (`DisparityHoles`: the farther
    /// of the row's nearest finite samples); a map without one becomes 0. NaNs are the caller's to
    /// refuse, as the renderer does.
    public func upsample(_ map: DisparityMap, frame: Image) -> DisparityMap {
        let plane = map.values.plane(0)
        let mw = plane.width, mh = plane.height
        var filled = [Float](repeating: 0, count: mw * mh)
        filled.withUnsafeMutableBufferPointer { f in
            if !DisparityHoles.fill(plane, into: f.baseAddress!) { f.update(repeating: 0) }
        }
        let out = Image(width: frame.width, height: frame.height, format: .float32)
        let o = out.plane(0)
        filled.withUnsafeBufferPointer { f in
            upsample(f.baseAddress!, stride: mw, width: mw, height: mh, frame: frame,
                     into: o.row(0, as: Float.self), outStride: o.stride / 4)
        }
        return DisparityMap(values: out, referenceWidth: map.referenceWidth, referenceHeight: map.referenceHeight)
    }

    /// The pointer form: `map` (`mw`×`mh` finite samples, at least 2×2, `stride` floats a row)
    /// upsampled to `frame`'s size into `out` (`outStride` floats a row).
    func upsample(_ map: UnsafePointer<Float>, stride: Int, width mw: Int, height mh: Int, frame: Image,
                  into out: UnsafeMutablePointer<Float>, outStride: Int) {
        let W = frame.width, H = frame.height, n = mw * mh
        let bands = max(1, settings.threads)
        MatteUpsampler(radius: settings.radius, epsilon: settings.epsilon).fit(width: mw, height: mh, guide: frame, into: &model) { p in
            for y in 0..<mh { for x in 0..<mw { p[y * mw + x] = map[y * stride + x] } }
        }
        // The clamp: the lowest and highest sample of the 3×3 around each sample, for the pixels
        // nearest that sample (a sample straddling an edge holds a mix: a pixel may take either
        // neighbour's depth, but not that of samples farther off).
        let Lo = lows.ensuring(n), Hi = highs.ensuring(n), Snap = snaps.ensuring(n)
        let snapPower = settings.snapPower, snapSpan = settings.snapSpan
        for y in 0..<mh {
            let r0 = max(0, y - 1), r1 = min(mh - 1, y + 1)
            for x in 0..<mw {
                let c0 = max(0, x - 1), c1 = min(mw - 1, x + 1)
                var lo = Float.infinity, hi = -Float.infinity
                for yy in r0...r1 {
                    for xx in c0...c1 { lo = min(lo, map[yy * stride + xx]); hi = max(hi, map[yy * stride + xx]) }
                }
                Lo[y * mw + x] = lo
                Hi[y * mw + x] = hi
                Snap[y * mw + x] = snapPower > 0 && hi - lo > snapSpan
                    ? Self.snap(map, stride: stride, luma: model.lowI, width: mw, rows: r0...r1, columns: c0...c1, power: snapPower) : 0
            }
        }
        let NX = nearest.ensuring(W)
        let sx = Float(mw) / Float(W), sy = Float(mh) / Float(H)
        for x in 0..<W { NX[x] = Int32(min(mw - 1, Int(max(0, (Float(x) + 0.5) * sx - 0.5) + 0.5))) }
        lumaRows.ensure(bands * W)
        rowAB.ensure(bands * 2 * mw)
        let model = self.model, rgba = frame.format == .rgba8
        model.a.withUnsafeBufferPointer { A in
            model.b.withUnsafeBufferPointer { B in
                model.x0.withUnsafeBufferPointer { X0 in
                    model.wx.withUnsafeBufferPointer { WX in
                        RowBands.run(0..<H, bands: bands) { band, rows in
                            let lumaRow = self.lumaRows.base + band * W
                            let ra = self.rowAB.base + band * 2 * mw, rb = ra + mw
                            for y in rows {
                                // a and b interpolated down to this row once, then across it.
                                let (y0, wy) = model.rows(y)
                                let r0 = y0 * mw, r1 = r0 + mw
                                for x in 0..<mw {
                                    ra[x] = A[r0 + x] + (A[r1 + x] - A[r0 + x]) * wy
                                    rb[x] = B[r0 + x] + (B[r1 + x] - B[r0 + x]) * wy
                                }
                                let ny = min(mh - 1, Int(max(0, (Float(y) + 0.5) * sy - 0.5) + 0.5))
                                let lo = Lo + ny * mw, hi = Hi + ny * mw, snap = Snap + ny * mw
                                let luma: UnsafePointer<UInt8>
                                if rgba {
                                    MatteUpsampler.lumaRow(frame, y, into: lumaRow)
                                    luma = UnsafePointer(lumaRow)
                                } else {
                                    luma = UnsafePointer(frame.plane(0).row(y, as: UInt8.self))
                                }
                                let dst = out + y * outStride
                                for x in 0..<W {
                                    let i = Int(X0[x]), f = WX[x]
                                    let a = ra[i] + (ra[i + 1] - ra[i]) * f, b = rb[i] + (rb[i + 1] - rb[i]) * f
                                    let q = a * Float(luma[x]) * (1 / 255) + b
                                    let c = Int(NX[x])
                                    let v = min(hi[c], max(lo[c], q)), w = snap[c]
                                    // Towards the nearer end of the range, by the window's snap weight.
                                    dst[x] = w > 0 ? v + w * ((v - lo[c] > hi[c] - v ? hi[c] : lo[c]) - v) : v
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// r² of the linear model in one window (the squared correlation of the samples' mean luma
    /// and their disparity) raised to `power`: 1 where the luma explains the window's depth step
    /// wholly, 0 where it does not follow it.
    private static func snap(_ map: UnsafePointer<Float>, stride: Int, luma: [Float], width mw: Int,
                             rows: ClosedRange<Int>, columns: ClosedRange<Int>, power: Float) -> Float {
        var si: Float = 0, sd: Float = 0, sii: Float = 0, sdd: Float = 0, sid: Float = 0, count: Float = 0
        for y in rows {
            for x in columns {
                let i = luma[y * mw + x], d = map[y * stride + x]
                si += i; sd += d; sii += i * i; sdd += d * d; sid += i * d; count += 1
            }
        }
        let mi = si / count, md = sd / count
        let vi = sii / count - mi * mi, vd = sdd / count - md * md, c = sid / count - mi * md
        guard vi > 1e-9, vd > 1e-9 else { return 0 }
        return Float(pow(Double(min(1, c * c / (vi * vd))), Double(power)))
    }
}
