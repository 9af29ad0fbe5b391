// MatteUpsampler: a low-resolution person matte brought to the frame's resolution along the
// frame's own edges — the fast guided filter (He & Sun, 2015): a local linear model
// matte ≈ a · luma + b fitted at the matte's size, its coefficients upsampled and applied to
// the full-resolution luma, so the outline follows hair and shoulders, not the model's grid.
import CineMedia

/// Upsamples a `gray8` matte to a frame's size, guided by the frame's luma.
///
/// ```swift
/// let full = MatteUpsampler().upsample(matte, guide: frame)   // gray8 at the frame's size
/// ```
public struct MatteUpsampler: Sendable {
    /// Window radius of the local model, in matte pixels (1 = 3×3, 22 px of a 1080p frame from
    /// a 256×144 matte). Wider windows sharpen a synthetic edge further but, on real photos,
    /// spread a glow wherever hair and wall have the same brightness.
    public var radius: Int
    /// Regularisation (luma in 0…1, squared): larger follows the coarse matte, smaller the
    /// frame's edges; edges weaker than about √epsilon (16 levels at 0.004) are not followed.
    public var epsilon: Float

    /// Creates an upsampler.
    public init(radius: Int = 1, epsilon: Float = 0.004) {
        self.radius = radius
        self.epsilon = epsilon
    }

    /// `matte` (`gray8`, any size of the frame's aspect) at the size of `guide` (`gray8`, I420
    /// or NV12: its luma plane), 255 = person.
    /// Cost: one pass over the guide to shrink it, box sums at the matte's size, and one
    /// bilinear interpolation of two coefficients per frame pixel; no per-call allocation
    /// beyond the result and buffers at the matte's size.
    public func upsample(_ matte: Image, guide: Image, pool: ImagePool? = nil) -> Image {
        precondition(matte.format == .gray8, "the matte is gray8")
        precondition([.gray8, .i420, .nv12].contains(guide.format), "the guide is gray8, I420 or NV12")
        let mw = matte.width, mh = matte.height, gw = guide.width, gh = guide.height
        precondition(mw >= 2 && mh >= 2, "the matte is at least 2×2")
        let n = mw * mh
        var lowI = [Float](repeating: 0, count: n), p = [Float](repeating: 0, count: n)
        // The guide's luma averaged over each matte pixel's footprint.
        let luma = guide.plane(0), sx = Double(gw) / Double(mw), sy = Double(gh) / Double(mh)
        var counts = [Float](repeating: 0, count: n)
        let column = (0..<gw).map { min(mw - 1, Int(Double($0) / sx)) }  // each guide column's matte column
        for y in 0..<gh {
            let row = luma.row(y, as: UInt8.self), r = min(mh - 1, Int(Double(y) / sy)) * mw
            lowI.withUnsafeMutableBufferPointer { li in
                counts.withUnsafeMutableBufferPointer { c in
                    for x in 0..<gw {
                        li[r + column[x]] += Float(row[x])
                        c[r + column[x]] += 1
                    }
                }
            }
        }
        for k in 0..<n { lowI[k] = lowI[k] / max(1, counts[k]) / 255 }
        for y in 0..<mh {
            let row = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<mw { p[y * mw + x] = Float(row[x]) / 255 }
        }
        let ip = zip(lowI, p).map { $0 * $1 }, ii = lowI.map { $0 * $0 }
        let meanI = boxMean(lowI, mw, mh), meanP = boxMean(p, mw, mh)
        let meanIP = boxMean(ip, mw, mh), meanII = boxMean(ii, mw, mh)
        var a = [Float](repeating: 0, count: n), b = [Float](repeating: 0, count: n)
        for k in 0..<n {
            let variance = meanII[k] - meanI[k] * meanI[k], covariance = meanIP[k] - meanI[k] * meanP[k]
            a[k] = covariance / (variance + epsilon)
            b[k] = meanP[k] - a[k] * meanI[k]
        }
        let A = boxMean(a, mw, mh), B = boxMean(b, mw, mh)
        let out = pool?.makeImage(width: gw, height: gh, format: .gray8) ?? Image(width: gw, height: gh, format: .gray8)
        let dst = out.plane(0)
        // Matte pixel centres sit at (i + 0.5) · s in the frame: bilinear between them.
        var x0s = [Int](repeating: 0, count: gw), wxs = [Float](repeating: 0, count: gw)
        for x in 0..<gw {
            let f = max(0, min(Double(mw - 1), (Double(x) + 0.5) / sx - 0.5))
            x0s[x] = min(mw - 2, Int(f))
            wxs[x] = Float(f - Double(x0s[x]))
        }
        for y in 0..<gh {
            let f = max(0, min(Double(mh - 1), (Double(y) + 0.5) / sy - 0.5))
            let y0 = min(mh - 2, Int(f)), wy = Float(f - Double(y0))
            let g = luma.row(y, as: UInt8.self), o = dst.row(y, as: UInt8.self)
            let r0 = y0 * mw, r1 = r0 + mw
            for x in 0..<gw {
                let x0 = x0s[x], wx = wxs[x]
                let a0 = A[r0 + x0] + (A[r0 + x0 + 1] - A[r0 + x0]) * wx
                let a1 = A[r1 + x0] + (A[r1 + x0 + 1] - A[r1 + x0]) * wx
                let b0 = B[r0 + x0] + (B[r0 + x0 + 1] - B[r0 + x0]) * wx
                let b1 = B[r1 + x0] + (B[r1 + x0 + 1] - B[r1 + x0]) * wx
                let q = (a0 + (a1 - a0) * wy) * Float(g[x]) / 255 + b0 + (b1 - b0) * wy
                o[x] = UInt8(max(0, min(1, q)) * 255 + 0.5)
            }
        }
        return out
    }

    /// The mean of `v` over a (2r+1)² window clipped to the image, by summed-area table.
    private func boxMean(_ v: [Float], _ w: Int, _ h: Int) -> [Float] {
        let s = w + 1
        var table = [Double](repeating: 0, count: s * (h + 1))
        for y in 0..<h {
            var run = 0.0
            for x in 0..<w {
                run += Double(v[y * w + x])
                table[(y + 1) * s + x + 1] = table[y * s + x + 1] + run
            }
        }
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let ya = max(0, y - radius), yb = min(h, y + radius + 1)
            for x in 0..<w {
                let xa = max(0, x - radius), xb = min(w, x + radius + 1)
                let sum = table[yb * s + xb] - table[ya * s + xb] - table[yb * s + xa] + table[ya * s + xa]
                out[y * w + x] = Float(sum / Double((yb - ya) * (xb - xa)))
            }
        }
        return out
    }
}
