// StabilizationCornerDetector: picks trackable points for the motion estimator — Shi-Tomasi
// corners, the strongest one per cell of a grid so the points spread over the whole frame and
// their count is bounded.

/// Shi-Tomasi (minimum-eigenvalue) corners, one per grid cell.
enum StabilizationCornerDetector {
    /// The strongest corner of each of `columns` × `rows` cells of `level`, at least `margin`
    /// pixels from the border, skipping cells whose best response is below 1 % of the frame's
    /// best or below a noise floor. Coordinates are level pixels (pixel centres at integers).
    ///
    /// Cost: per pixel, one central-difference gradient (4 loads), three products, a separable
    /// 5 × 5 box sum of the three (≈ 12 adds) and one square root: ≈ 25 flops on `w × h` floats;
    /// at the 320 × 180 analysis size that is ≈ 1.5 Mflop, well under 1 ms optimised.
    static func corners(
        in level: StabilizationLumaPyramid.Level, columns: Int, rows: Int,
        margin: Int
    ) -> [SIMD2<Float>] {
        let w = level.width, h = level.height
        guard w > 2 * margin + 2, h > 2 * margin + 2 else { return [] }
        let n = w * h
        var products = [SIMD4<Float>](repeating: .zero, count: n)  // Ixx, Ixy, Iyy, unused
        var rowSums = [SIMD4<Float>](repeating: .zero, count: n)
        var response = [Float](repeating: 0, count: n)
        let radius = 2
        level.pixels.withUnsafeBufferPointer { src in
            products.withUnsafeMutableBufferPointer { prod in
                rowSums.withUnsafeMutableBufferPointer { rs in
                    response.withUnsafeMutableBufferPointer { resp in
                        let s = src.baseAddress!, p = prod.baseAddress!, r = rs.baseAddress!, out = resp.baseAddress!
                        for y in 1..<(h - 1) {
                            for x in 1..<(w - 1) {
                                let i = y * w + x
                                let gx = 0.5 * (s[i + 1] - s[i - 1]), gy = 0.5 * (s[i + w] - s[i - w])
                                p[i] = SIMD4(gx * gx, gx * gy, gy * gy, 0)
                            }
                        }
                        // Horizontal box sums.
                        for y in 0..<h {
                            let row = p + y * w, dst = r + y * w
                            for x in radius..<(w - radius) {
                                var sum = SIMD4<Float>.zero
                                for k in -radius...radius { sum += row[x + k] }
                                dst[x] = sum
                            }
                        }
                        // Vertical box sums and the minimum eigenvalue.
                        for y in radius..<(h - radius) {
                            for x in radius..<(w - radius) {
                                var sum = SIMD4<Float>.zero
                                for k in -radius...radius { sum += r[(y + k) * w + x] }
                                let half = 0.5 * (sum.x + sum.z), diff = 0.5 * (sum.x - sum.z)
                                out[y * w + x] = half - (diff * diff + sum.y * sum.y).squareRoot()
                            }
                        }
                    }
                }
            }
        }
        var best: Float = 0
        for v in response where v > best { best = v }
        let floor = max(best * 0.01, 25 * 2)  // mean squared gradient of at least ~2 over the window
        var points: [SIMD2<Float>] = []
        points.reserveCapacity(columns * rows)
        let lo = max(margin, radius), hiX = w - max(margin, radius), hiY = h - max(margin, radius)
        for cy in 0..<rows {
            let y0 = lo + (hiY - lo) * cy / rows, y1 = lo + (hiY - lo) * (cy + 1) / rows
            for cx in 0..<columns {
                let x0 = lo + (hiX - lo) * cx / columns, x1 = lo + (hiX - lo) * (cx + 1) / columns
                var top: Float = floor, at: SIMD2<Float>?
                for y in y0..<y1 {
                    for x in x0..<x1 where response[y * w + x] > top {
                        top = response[y * w + x]
                        at = SIMD2(Float(x), Float(y))
                    }
                }
                if let at { points.append(at) }
            }
        }
        return points
    }
}
