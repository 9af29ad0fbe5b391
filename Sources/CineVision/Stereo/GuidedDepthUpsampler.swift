// GuidedDepthUpsampler: a low-resolution disparity map brought to the frame's resolution with its
// depth edges drawn by the frame's own edges — the fast guided filter (He & Sun, 2015): a local
// linear model disparity ≈ a·luma + b fitted at the map's resolution, applied at the frame's.
import CineMedia

/// Upsamples a disparity map to the frame's resolution, its outlines following the frame's.
///
/// A 320×180 map cannot say on which of the four frame pixels under a sample a person's outline
/// lies; the frame can. In each window of the map (``Settings/radius`` samples each side) the
/// disparity is modelled as a linear function of the frame's luma, `d ≈ a·I + b` (least squares;
/// ``Settings/epsilon`` keeps `a` near 0 where the luma is flat or the disparity does not follow
/// it). Inside a surface of one depth `a` is 0 and the map is only smoothed; across a depth edge
/// whose two sides differ in luma, `a` carries the step, and at the frame's resolution
/// `a·I(x) + b` puts the step where the luma steps, to the pixel. The result is clamped to the
/// range of the 3×3 samples around the pixel's nearest sample, so it never overshoots what the map
/// says nearby.
///
/// ```swift
/// let upsampler = GuidedDepthUpsampler()
/// let fine = upsampler.upsample(map, frame: left)   // the frame's size
/// ```
/// Cost: the fit at the map's resolution (one area mean of the luma, six box means) and one pass
/// at the frame's resolution — two linear interpolations, a multiply-add and a clamp a pixel, in
/// row bands on ``Settings/threads`` cores (`CineBench depth` reports it). It keeps its scratch
/// between calls: use one upsampler from one thread at a time.
public final class GuidedDepthUpsampler: @unchecked Sendable {
    /// The knobs of the upsampler.
    public struct Settings: Sendable, Hashable {
        /// Window radius, in map samples.
        public var radius = 3
        /// Regularisation, in (luma / 255)²: the larger, the less the luma shapes the map.
        public var epsilon: Float = 0.0002
        /// Cores for the pass at the frame's resolution.
        public var threads = 2
        /// The default settings.
        public init() {}
    }

    /// The settings of the next call.
    public var settings: Settings
    private let p = BokehScratch<Float>(), g = BokehScratch<Float>(), t0 = BokehScratch<Float>(), t1 = BokehScratch<Float>()
    private let meanA = BokehScratch<Float>(), meanB = BokehScratch<Float>(), lows = BokehScratch<Float>(), highs = BokehScratch<Float>()
    private let columns = BokehScratch<Int32>(), fractions = BokehScratch<Float>(), rowScratch = BokehScratch<Float>()
    private let lumaRows = BokehScratch<UInt8>(), columnSums = BokehScratch<Float>(), nearestColumns = BokehScratch<Int32>()

    /// Creates an upsampler.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// `map` at `frame`'s size (float32), guided by `frame`'s luma (I420, NV12, gray8 or RGBA).
    /// Non-finite samples take their row's nearest finite value (0 on a row without one).
    public func upsample(_ map: DisparityMap, frame: Image) -> DisparityMap {
        let plane = map.values.plane(0)
        let mw = plane.width, mh = plane.height
        let filled = BokehScratch<Float>()
        filled.ensure(mw * mh)
        for y in 0..<mh {
            let row = plane.row(y, as: Float.self), dst = filled.base + y * mw
            var last: Float = 0
            for x in 0..<mw where row[x].isFinite { last = row[x]; break }
            for x in 0..<mw {
                if row[x].isFinite { last = row[x] }
                dst[x] = last
            }
        }
        let out = Image(width: frame.width, height: frame.height, format: .float32)
        let o = out.plane(0)
        upsample(UnsafePointer(filled.base), stride: mw, width: mw, height: mh, frame: frame,
                 into: o.row(0, as: Float.self), outStride: o.stride / 4)
        return DisparityMap(values: out, referenceWidth: map.referenceWidth, referenceHeight: map.referenceHeight)
    }

    /// The pointer form: `map` (`mw`×`mh` finite samples, `stride` floats a row) upsampled to
    /// `frame`'s size into `out` (`outStride` floats a row).
    func upsample(_ map: UnsafePointer<Float>, stride: Int, width mw: Int, height mh: Int, frame: Image,
                  into out: UnsafeMutablePointer<Float>, outStride: Int) {
        let W = frame.width, H = frame.height, n = mw * mh
        let bands = max(1, settings.threads)
        let P = p.ensuring(n), G = g.ensuring(n), A = meanA.ensuring(n + 1), B = meanB.ensuring(n + 1)
        let T0 = t0.ensuring(n), T1 = t1.ensuring(n)
        lumaRows.ensure(bands * W)
        // The map and the luma at the map's resolution (area means, luma in 0…1).
        for y in 0..<mh { (P + y * mw).update(from: map + y * stride, count: mw) }
        let colsPerSample = W / mw, even = colsPerSample > 0 && colsPerSample * mw == W
        RowBands.run(0..<mh, bands: bands) { band, rows in
            let lumaRow = self.lumaRows.base + band * W
            for y in rows {
                let y0 = y * H / mh, y1 = max(y0 + 1, (y + 1) * H / mh)
                let dst = G + y * mw
                for x in 0..<mw { dst[x] = 0 }
                for yy in y0..<y1 {
                    let r = Self.luma(frame, row: yy, scratch: lumaRow)
                    if even {
                        var i = 0
                        for x in 0..<mw {
                            var s = 0
                            for _ in 0..<colsPerSample { s += Int(r[i]); i += 1 }
                            dst[x] += Float(s) / Float(colsPerSample)
                        }
                    } else {
                        for x in 0..<mw {
                            let x0 = x * W / mw, x1 = max(x0 + 1, (x + 1) * W / mw)
                            var s = 0
                            for xx in x0..<x1 { s += Int(r[xx]) }
                            dst[x] += Float(s) / Float(x1 - x0)
                        }
                    }
                }
                let scale = 1 / (Float(y1 - y0) * 255)
                for x in 0..<mw { dst[x] *= scale }
            }
        }
        // The local linear model in each window: a = cov(I, d) / (var(I) + ε), b = mean(d) − a·mean(I).
        let r = settings.radius
        let mG = lows.ensuring(n), mP = highs.ensuring(n)
        boxMean(G, into: mG, mw, mh, r)
        boxMean(P, into: mP, mw, mh, r)
        for i in 0..<n { T0[i] = G[i] * G[i]; T1[i] = G[i] * P[i] }
        boxMean(T0, into: T0, mw, mh, r)
        boxMean(T1, into: T1, mw, mh, r)
        let eps = settings.epsilon
        for i in 0..<n {
            let variance = max(0, T0[i] - mG[i] * mG[i])
            let a = (T1[i] - mG[i] * mP[i]) / (variance + eps)
            T0[i] = a
            T1[i] = mP[i] - a * mG[i]
        }
        boxMean(T0, into: A, mw, mh, r)
        boxMean(T1, into: B, mw, mh, r)
        // The clamp: the lowest and highest sample of the 3×3 around each sample, applied to the
        // pixels nearest that sample (a pixel may take the depth of its sample's neighbours on
        // either side — a sample straddling the edge holds a mix — but not of samples farther off).
        let Lo = lows.base, Hi = highs.base
        for y in 0..<mh {
            let r0 = max(0, y - 1), r1 = min(mh - 1, y + 1)
            for x in 0..<mw {
                let c0 = max(0, x - 1), c1 = min(mw - 1, x + 1)
                var lo = Float.infinity, hi = -Float.infinity
                for yy in r0...r1 {
                    let row = P + yy * mw
                    for xx in c0...c1 { lo = min(lo, row[xx]); hi = max(hi, row[xx]) }
                }
                Lo[y * mw + x] = lo
                Hi[y * mw + x] = hi
            }
        }
        // Bilinear taps into the map's columns, once a call.
        let X0 = columns.ensuring(W), FX = fractions.ensuring(W), NX = nearestColumns.ensuring(W)
        let sx = Float(mw) / Float(W), sy = Float(mh) / Float(H)
        for x in 0..<W {
            let fx = max(0, min(Float(mw - 1), (Float(x) + 0.5) * sx - 0.5))
            X0[x] = Int32(fx)
            FX[x] = fx - Float(Int(fx))
            NX[x] = Int32(min(mw - 1, Int(fx + 0.5)))
        }
        rowScratch.ensure(bands * 2 * (mw + 1))
        RowBands.run(0..<H, bands: bands) { band, rows in
            let ra = self.rowScratch.base + band * 2 * (mw + 1), rb = ra + mw + 1
            let lumaRow = self.lumaRows.base + band * W
            for y in rows {
                let fy = max(0, min(Float(mh - 1), (Float(y) + 0.5) * sy - 0.5))
                let y0 = Int(fy), y1 = min(mh - 1, y0 + 1), wy = fy - Float(y0)
                let a0 = A + y0 * mw, a1 = A + y1 * mw, b0 = B + y0 * mw, b1 = B + y1 * mw
                for x in 0..<mw {
                    ra[x] = a0[x] + wy * (a1[x] - a0[x])
                    rb[x] = b0[x] + wy * (b1[x] - b0[x])
                }
                ra[mw] = ra[mw - 1]; rb[mw] = rb[mw - 1]
                let ny = min(mh - 1, Int(fy + 0.5)), lo = Lo + ny * mw, hi = Hi + ny * mw
                let src = Self.luma(frame, row: y, scratch: lumaRow)
                let dst = out + y * outStride
                for x in 0..<W {
                    let i = Int(X0[x]), f = FX[x]
                    let a = ra[i] + f * (ra[i + 1] - ra[i]), b = rb[i] + f * (rb[i + 1] - rb[i])
                    let q = a * (Float(src[x]) * (1 / 255)) + b
                    let c = Int(NX[x])
                    dst[x] = min(hi[c], max(lo[c], q))
                }
            }
        }
    }

    /// Row `y` of `frame`'s luma: the plane itself for planar formats, converted into `scratch`
    /// for RGBA.
    @inline(__always)
    private static func luma(_ frame: Image, row y: Int, scratch: UnsafeMutablePointer<UInt8>) -> UnsafePointer<UInt8> {
        let plane = frame.plane(0)
        guard frame.format == .rgba8 else { return UnsafePointer(plane.row(y, as: UInt8.self)) }
        let src = plane.row(y, as: UInt8.self)
        for x in 0..<frame.width {
            let r = Int(src[4 * x]), g = Int(src[4 * x + 1]), b = Int(src[4 * x + 2])
            scratch[x] = UInt8((77 * r + 150 * g + 29 * b) >> 8)
        }
        return UnsafePointer(scratch)
    }

    /// The mean over a (2r+1)² box clipped to the map, by running sums along rows then columns;
    /// `out` may be `v`.
    private func boxMean(_ v: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int, _ r: Int) {
        let rows = rowScratch.ensuring(w * h)
        for y in 0..<h {
            let src = v + y * w, dst = rows + y * w
            var sum: Float = 0
            for x in 0..<min(r, w) { sum += src[x] }
            for x in 0..<w {
                if x + r < w { sum += src[x + r] }
                if x - r - 1 >= 0 { sum -= src[x - r - 1] }
                dst[x] = sum / Float(min(w - 1, x + r) - max(0, x - r) + 1)
            }
        }
        // Columns: one running sum a column, kept in a row, rows added and dropped whole.
        let acc = columnSums.ensuring(w)
        for x in 0..<w { acc[x] = 0 }
        for y in 0..<min(r, h) { for x in 0..<w { acc[x] += rows[y * w + x] } }
        for y in 0..<h {
            if y + r < h { let add = rows + (y + r) * w; for x in 0..<w { acc[x] += add[x] } }
            if y - r - 1 >= 0 { let drop = rows + (y - r - 1) * w; for x in 0..<w { acc[x] -= drop[x] } }
            let scale = 1 / Float(min(h - 1, y + r) - max(0, y - r) + 1), dst = out + y * w
            for x in 0..<w { dst[x] = acc[x] * scale }
        }
    }
}
