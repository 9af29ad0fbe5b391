// CascadeScaler: the pyramid's resize — bilinear in 8-bit fixed point, reproducing OpenCV's
// `resize(..., INTER_LINEAR_EXACT)` so that every pyramid level has the same pixels as OpenCV's.

/// Bit-exact bilinear resize of 8-bit planes (OpenCV's `INTER_LINEAR_EXACT`).
///
/// Source coordinate `(d + 0.5)·scale − 0.5`, weights rounded to 1/256, horizontal pass into
/// 8.8 fixed point, vertical pass into 16.16, rounded to 8 bits; edge samples are clamped.
public enum CascadeScaler {
    /// Resizes `src` (`sw`×`sh`, `srcStride` bytes per row) into `dst` (`dw`×`dh`, `dstStride`).
    /// Cost: ≈ 4 multiply-adds per output pixel plus one horizontal pass per used source row.
    public static func resize(_ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int, stride srcStride: Int,
                              into dst: UnsafeMutablePointer<UInt8>, width dw: Int, height dh: Int, stride dstStride: Int) {
        precondition(sw > 0 && sh > 0 && dw > 0 && dh > 0, "resize of an empty image")
        if sw == dw && sh == dh {
            for y in 0..<sh { (dst + y * dstStride).update(from: src + y * srcStride, count: sw) }
            return
        }
        let xo = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * dw)
        let xc = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * dw)
        let rows = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * dw)
        defer { xo.deallocate(); xc.deallocate(); rows.deallocate() }
        coefficients(source: sw, destination: dw, offsets: xo, weights: xc)
        let yo = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * dh)
        let yc = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * dh)
        defer { yo.deallocate(); yc.deallocate() }
        coefficients(source: sh, destination: dh, offsets: yo, weights: yc)
        var cached = (-1, -1)  // source rows held in rows[0..<dw] and rows[dw..<2dw]
        // Horizontal pass of one source row: 2 loads, 2 multiplies per output pixel.
        func horizontal(_ sy: Int, into h: UnsafeMutablePointer<UInt32>) {
            let s = src + sy * srcStride
            for dx in 0..<dw {
                h[dx] = UInt32(s[Int(xo[2 * dx])]) &* xc[2 * dx] &+ UInt32(s[Int(xo[2 * dx + 1])]) &* xc[2 * dx + 1]
            }
        }
        for dy in 0..<dh {
            let s0 = Int(yo[2 * dy]), s1 = Int(yo[2 * dy + 1])
            let h0 = rows, h1 = rows + dw
            if cached.0 != s0 {
                if cached.1 == s0 { h0.update(from: h1, count: dw) } else { horizontal(s0, into: h0) }
            }
            if cached.1 != s1 || cached.0 != s0 { horizontal(s1, into: h1) }
            cached = (s0, s1)
            let c0 = yc[2 * dy], c1 = yc[2 * dy + 1]
            let d = dst + dy * dstStride
            // Vertical pass: 2 multiply-adds + round per output pixel.
            for dx in 0..<dw {
                d[dx] = UInt8(truncatingIfNeeded: (h0[dx] &* c0 &+ h1[dx] &* c1 &+ 32768) >> 16)
            }
        }
    }

    /// Source indices and 8-bit weights (summing to 256) for each destination index.
    static func coefficients(source n: Int, destination m: Int, offsets: UnsafeMutablePointer<Int32>,
                             weights: UnsafeMutablePointer<UInt32>) {
        let inv = Double(m) / Double(n)
        let scale = 1.0 / inv
        for d in 0..<m {
            var f = (Double(d) + 0.5) * scale - 0.5
            let s = Int(f.rounded(.down))
            f -= Double(s)
            if s < 0 {
                offsets[2 * d] = 0; offsets[2 * d + 1] = 0
                weights[2 * d] = 256; weights[2 * d + 1] = 0
            } else if s + 1 >= n {
                offsets[2 * d] = Int32(n - 1); offsets[2 * d + 1] = Int32(n - 1)
                weights[2 * d] = 256; weights[2 * d + 1] = 0
            } else {
                let w1 = UInt32((f * 256).rounded(.toNearestOrEven))
                offsets[2 * d] = Int32(s); offsets[2 * d + 1] = Int32(s + 1)
                weights[2 * d] = 256 - w1; weights[2 * d + 1] = w1
            }
        }
    }
}
