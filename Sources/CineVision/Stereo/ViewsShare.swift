// ViewsShare: which of two disparities the views give the pixels of one map sample — the test
// behind the person refiner's outline blends and the blends at any depth step.
import CineMedia

/// The share of a map sample's pixels whose window the right view matches better at one
/// disparity than at another.
///
/// A 320×180 sample on a depth step covers 4×4 pixels of the frame, some on the near side, some
/// on the far one. For each pixel the sum of absolute luma differences of its 3×3 window against
/// the right view shifted by each disparity (bilinear between whole pixels) says which side it
/// belongs to; each pixel's difference at each disparity is worked out once per sample (in the
/// vectors, once for each of the three column offsets), not once per window. Left of a nearer surface the farther side is hidden from the right camera and
/// matches nothing at its own depth: callers do not ask there.
enum ViewsShare {
    /// The share (0…1) of the pixels of sample (`x`, `y`) of a `mapWidth`×`mapHeight` map that
    /// match better at `near` than at `far` (disparities in pixels of the views, `toImage` times
    /// the map's units), or nil where no window stays inside the views.
    static func near(_ left: Plane, _ right: Plane, x: Int, y: Int, mapWidth w: Int, mapHeight h: Int,
                     near person: Float, far background: Float, toImage: Float) -> Float? {
        let iw = left.width, ih = left.height
        let x0 = x * iw / w, x1 = (x + 1) * iw / w, y0 = y * ih / h, y1 = (y + 1) * ih / h
        let bw = x1 - x0 + 2, bh = y1 - y0 + 2
        guard bw > 2, bh > 2 else { return nil }
        let near = (person * toImage, Int((person * toImage).rounded(.down)))
        let far = (background * toImage, Int((background * toImage).rounded(.down)))
        // A sample up to 6 pixels wide whose windows all lie inside both views: eight pixels to
        // a vector, summed in the same order as one by one (so with the same result).
        if x1 - x0 <= 6, x0 - 2 - max(near.1, far.1) >= 0, x0 + 9 <= iw, y0 >= 1, y1 + 1 <= ih, min(near.1, far.1) >= 0 {
            return vectors(left, right, x0: x0, x1: x1, y0: y0, y1: y1, near: near, far: far)
        }
        return oneByOne(left, right, x0: x0, x1: x1, y0: y0, y1: y1, near: near, far: far)
    }

    /// ``near(_:_:x:y:mapWidth:mapHeight:near:far:toImage:)`` for a sample whose windows lie
    /// inside the views, eight columns to a vector: lane `q` of the vector read at offset `o`
    /// holds the difference at column `x0 − 1 + o + q`, so the three offsets' column sums added
    /// are each pixel's 3×3 sum.
    static func vectors(_ left: Plane, _ right: Plane, x0: Int, x1: Int, y0: Int, y1: Int,
                        near: (Float, Int), far: (Float, Int)) -> Float {
        let rows = y1 - y0 + 2
        // Each row's differences at one offset and shift.
        @inline(__always) func difference(_ yy: Int, _ o: Int, _ shift: (Float, Int)) -> SIMD8<Float> {
            let f = SIMD8<Float>(repeating: shift.0 - Float(shift.1))
            let l = UnsafeRawPointer(left.row(yy)), r = UnsafeRawPointer(right.row(yy))
            let at = x0 - 1 + o
            let a = SIMD8<Float>(l.loadUnaligned(fromByteOffset: at, as: SIMD8<UInt8>.self))
            let r0 = SIMD8<Float>(r.loadUnaligned(fromByteOffset: at - shift.1, as: SIMD8<UInt8>.self))
            let r1 = SIMD8<Float>(r.loadUnaligned(fromByteOffset: at - shift.1 - 1, as: SIMD8<UInt8>.self))
            let v = a - (r0 * (1 - f) + r1 * f)
            return v.replacing(with: -v, where: v .< 0)
        }
        var votes = 0
        let used = x1 - x0
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 2 * 3 * rows) { d in
            for k in 0..<2 {
                for o in 0..<3 {
                    for r in 0..<rows { d[(k * 3 + o) * rows + r] = difference(y0 - 1 + r, o, k == 0 ? near : far) }
                }
            }
            // Pixel row `r`'s 3×3 sums at shift `k`: three rows per column, then three columns.
            func sums(_ k: Int, _ r: Int) -> SIMD8<Float> {
                let b = k * 3 * rows + r
                let c0 = d[b] + d[b + 1] + d[b + 2], c1 = d[b + rows] + d[b + rows + 1] + d[b + rows + 2]
                let c2 = d[b + 2 * rows] + d[b + 2 * rows + 1] + d[b + 2 * rows + 2]
                return c0 + c1 + c2
            }
            for r in 0..<(rows - 2) {
                let closer = sums(0, r) .< sums(1, r)
                for q in 0..<used where closer[q] { votes += 1 }
            }
        }
        return Float(votes) / Float(used * (rows - 2))
    }

    /// ``near(_:_:x:y:mapWidth:mapHeight:near:far:toImage:)`` one pixel at a time: any sample,
    /// at the views' edges too.
    static func oneByOne(_ left: Plane, _ right: Plane, x0: Int, x1: Int, y0: Int, y1: Int,
                         near: (Float, Int), far: (Float, Int)) -> Float? {
        let iw = left.width, ih = left.height
        let bw = x1 - x0 + 2, bh = y1 - y0 + 2
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * bw * bh) { diffs in
            for k in 0..<2 {
                let (shift, i0) = k == 0 ? near : far, f = shift - Float(i0)
                let from = max(0, x0 - 1, i0 + 1), to = min(iw, x1 + 1, iw + i0)
                guard from < to else { continue }
                for yy in max(0, y0 - 1)..<min(ih, y1 + 1) {
                    let l = left.row(yy, as: UInt8.self), r = right.row(yy, as: UInt8.self)
                    for xx in from..<to {
                        diffs[k * bw * bh + (yy - y0 + 1) * bw + xx - x0 + 1]
                            = abs(Float(l[xx]) - (Float(r[xx - i0]) * (1 - f) + Float(r[xx - i0 - 1]) * f))
                    }
                }
            }
            // Each pixel's 3×3 sums: three rows summed per column, then three columns.
            let cols = withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * bw * (bh - 2)) { c in
                for k in 0..<2 {
                    let dk = diffs.baseAddress! + k * bw * bh, ck = c.baseAddress! + k * bw * (bh - 2)
                    for r in 0..<bh - 2 {
                        let a = dk + r * bw, b = a + bw, e = b + bw, o = ck + r * bw
                        for q in 0..<bw { o[q] = a[q] + b[q] + e[q] }
                    }
                }
                var votes = 0, all = 0
                let margin = max(near.1, far.1), lead = min(near.1, far.1)
                for py in y0..<y1 where py >= 1 && py + 1 < ih {
                    let r = py - y0
                    let c0 = c.baseAddress! + r * bw, c1 = c0 + bw * (bh - 2)
                    for px in x0..<x1 where px - 2 - margin >= 0 && px + 1 - lead < iw && px + 1 < iw {
                        let q = px - x0
                        all += 1
                        if c0[q] + c0[q + 1] + c0[q + 2] < c1[q] + c1[q + 1] + c1[q + 2] { votes += 1 }
                    }
                }
                return (votes, all)
            }
            let (votes, all) = cols
            return all > 0 ? Float(votes) / Float(all) : nil
        }
    }
}
