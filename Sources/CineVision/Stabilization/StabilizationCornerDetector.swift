// StabilizationCornerDetector: picks trackable points for the motion estimator — Shi-Tomasi
// corners, the strongest one per cell of a grid so the points spread over the whole frame and
// their count is bounded.

import Foundation

/// Shi-Tomasi (minimum-eigenvalue) corners, one per grid cell.
enum StabilizationCornerDetector {
    /// The strongest corner of each of `columns` × `rows` cells of `level`, at least `margin`
    /// pixels from the border, skipping cells whose best response is below 1 % of the frame's
    /// best or below a noise floor. Coordinates are level pixels (pixel centres at integers).
    ///
    /// Cost: per pixel, one central-difference gradient (4 loads), three products, a separable
    /// 5 × 5 box sum of the three (≈ 12 adds) and one square root: ≈ 25 flops on `w × h` floats;
    /// at the 320 × 180 analysis size that is ≈ 1.5 Mflop, in row bands on both cores.
    static func corners(
        in level: StabilizationLumaPyramid.Level, columns: Int, rows: Int,
        margin: Int
    ) -> [SIMD2<Float>] {
        let w = level.width, h = level.height
        guard w > 2 * margin + 2, h > 2 * margin + 2 else { return [] }
        let n = w * h
        let radius = 2
        // Ixx, Ixy, Iyy (4th lane unused) and their horizontal box sums; only the entries each
        // pass reads are written, so the buffers need no zeroing but for the products' border.
        let products = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: n)
        let rowSums = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: n)
        var response = [Float](unsafeUninitializedCapacity: n) { _, count in count = n }
        defer {
            products.deallocate()
            rowSums.deallocate()
        }
        products.update(repeating: .zero, count: w)
        (products + (h - 1) * w).update(repeating: .zero, count: w)
        let bands = n >= 20_000 ? 2 : 1
        level.pixels.withUnsafeBufferPointer { src in
            response.withUnsafeMutableBufferPointer { resp in
                let s = src.baseAddress!, out = resp.baseAddress!, p = products, r = rowSums
                // Gradient products and horizontal box sums, row bands on both cores.
                RowBands.run(0..<h, bands: bands) { _, ys in
                    for y in ys {
                        let row = p + y * w
                        row[0] = .zero
                        row[w - 1] = .zero
                        if y > 0 && y < h - 1 {
                            for x in 1..<(w - 1) {
                                let i = y * w + x
                                let gx = 0.5 * (s[i + 1] - s[i - 1]), gy = 0.5 * (s[i + w] - s[i - w])
                                row[x] = SIMD4(gx * gx, gx * gy, gy * gy, 0)
                            }
                        }
                        let dst = r + y * w
                        for x in radius..<(w - radius) {
                            var sum = SIMD4<Float>.zero
                            for k in -radius...radius { sum += row[x + k] }
                            dst[x] = sum
                        }
                    }
                }
                // Vertical box sums and the minimum eigenvalue.
                RowBands.run(radius..<(h - radius), bands: bands) { _, ys in
                    for y in ys {
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
        // Only the interior the grid search reads was written: its maximum is the frame's best.
        var best: Float = 0
        for y in radius..<(h - radius) {
            for x in radius..<(w - radius) where response[y * w + x] > best { best = response[y * w + x] }
        }
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
