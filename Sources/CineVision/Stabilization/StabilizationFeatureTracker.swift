// StabilizationFeatureTracker: follows points from one frame's luma pyramid into the next with
// pyramidal Lucas-Kanade (Bouguet's formulation), coarse level first.

import Foundation

/// Pyramidal Lucas-Kanade point tracking.
enum StabilizationFeatureTracker {
    /// Where each of `points` (level-0 pixels of `previous`) lies in `next`, or nil when it was
    /// lost (flat window, no convergence, or left the frame).
    ///
    /// Cost per point and level: `(2r+3)²` bilinear samples for the template and its gradients
    /// once, then per iteration `(2r+1)²` bilinear samples of `next` (the window shares one
    /// fractional offset: 4 loads, 3 lerps, no clamping inside the image) and 4 multiply-adds;
    /// with r = 4, 3 levels and typically 3–5 iterations ≈ 15 kflop per point, ≈ 2 Mflop for
    /// 144 points, split over both cores.
    static func track(
        _ points: [SIMD2<Float>], from previous: StabilizationLumaPyramid,
        to next: StabilizationLumaPyramid, radius: Int, iterations: Int
    ) -> [SIMD2<Float>?] {
        var result = [SIMD2<Float>?](repeating: nil, count: points.count)
        guard !points.isEmpty else { return result }
        let jobs = points.count >= 48 ? 2 : 1
        result.withUnsafeMutableBufferPointer { out in
            let out = out.baseAddress!
            RowBands.run(0..<points.count, bands: jobs) { _, indices in
                let side = 2 * radius + 1
                // Per-job scratch: template, gradients, and a patch one sample wider than the window.
                var scratch = [Float](repeating: 0, count: 3 * side * side + (side + 2) * (side + 2))
                scratch.withUnsafeMutableBufferPointer { buf in
                    for i in indices {
                        out[i] = trackOne(points[i], previous, next, radius, iterations, buf.baseAddress!)
                    }
                }
            }
        }
        return result
    }

    private static func trackOne(
        _ point: SIMD2<Float>, _ previous: StabilizationLumaPyramid,
        _ next: StabilizationLumaPyramid, _ radius: Int, _ iterations: Int,
        _ scratch: UnsafeMutablePointer<Float>
    ) -> SIMD2<Float>? {
        let levels = min(previous.levels.count, next.levels.count)
        let side = 2 * radius + 1, count = side * side
        let tpl = scratch, gxs = scratch + count, gys = scratch + 2 * count
        // The template's neighbourhood, one sample wider on each side, for the gradients.
        let wide = side + 2
        let patch = scratch + 3 * count
        var guess = SIMD2<Float>(0, 0)
        for level in stride(from: levels - 1, through: 0, by: -1) {
            let factor = Float(1 << level)
            // Pixel centres: level coordinate = (x + 0.5) / 2^L − 0.5.
            let p = (point + 0.5) / factor - 0.5
            let a = previous.levels[level], b = next.levels[level]
            var gxx: Float = 0, gxy: Float = 0, gyy: Float = 0
            a.pixels.withUnsafeBufferPointer { src in
                // Every sample of the window shares p's fractional offset: one bilinear sample per
                // patch pixel, gradients as central differences of the patch.
                samplePatch(src.baseAddress!, a.width, a.height, p, radius + 1, into: patch)
                var k = 0
                for j in 0..<side {
                    let row = patch + (j + 1) * wide + 1
                    for i in 0..<side {
                        let gx = 0.5 * (row[i + 1] - row[i - 1])
                        let gy = 0.5 * (row[i + wide] - row[i - wide])
                        tpl[k] = row[i]
                        gxs[k] = gx
                        gys[k] = gy
                        gxx += gx * gx
                        gxy += gx * gy
                        gyy += gy * gy
                        k += 1
                    }
                }
            }
            let det = gxx * gyy - gxy * gxy
            if det < 1e-3 * Float(count * count) { return nil }
            var v = SIMD2<Float>(0, 0)
            b.pixels.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                for _ in 0..<iterations {
                    let q = p + guess + v
                    samplePatch(s, b.width, b.height, q, radius, into: patch)
                    var bx: Float = 0, by: Float = 0
                    for k in 0..<count {
                        let diff = tpl[k] - patch[k]
                        bx += diff * gxs[k]
                        by += diff * gys[k]
                    }
                    let step = SIMD2((gyy * bx - gxy * by) / det, (gxx * by - gxy * bx) / det)
                    v += step
                    if step.x * step.x + step.y * step.y < 1e-4 { break }
                }
            }
            guess += v
            if level > 0 { guess *= 2 }
        }
        let end = point + guess
        let l0 = next.levels[0]
        guard end.x.isFinite, end.y.isFinite, end.x >= 0, end.y >= 0,
            end.x <= Float(l0.width - 1), end.y <= Float(l0.height - 1)
        else { return nil }
        return end
    }

    /// Bilinear samples at `centre + (i, j)` for `i, j` in `−r … r`, row by row into `out`
    /// (`(2r+1)²` floats). All share one fractional offset, so inside the image the weights are
    /// computed once and each sample is 4 loads and 3 lerps; windows touching the border fall
    /// back to clamped sampling.
    @inline(__always)
    private static func samplePatch(
        _ s: UnsafePointer<Float>, _ w: Int, _ h: Int, _ centre: SIMD2<Float>, _ r: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        let side = 2 * r + 1
        guard centre.x.isFinite, centre.y.isFinite else {
            out.update(repeating: 0, count: side * side)
            return
        }
        let fx0 = centre.x.rounded(.down), fy0 = centre.y.rounded(.down)
        if fx0 >= Float(r), fy0 >= Float(r), fx0 + Float(r + 1) <= Float(w - 1), fy0 + Float(r + 1) <= Float(h - 1) {
            let x0 = Int(fx0) - r, y0 = Int(fy0) - r
            let fx = centre.x - fx0, fy = centre.y - fy0
            var k = 0
            for j in 0..<side {
                let r0 = s + (y0 + j) * w + x0, r1 = r0 + w
                for i in 0..<side {
                    let top = r0[i] + (r0[i + 1] - r0[i]) * fx
                    let bottom = r1[i] + (r1[i + 1] - r1[i]) * fx
                    out[k] = top + (bottom - top) * fy
                    k += 1
                }
            }
        } else {
            var k = 0
            for j in -r...r {
                for i in -r...r {
                    out[k] = sample(s, w, h, centre.x + Float(i), centre.y + Float(j))
                    k += 1
                }
            }
        }
    }

    /// Bilinear sample with clamping to the border.
    @inline(__always)
    private static func sample(_ s: UnsafePointer<Float>, _ w: Int, _ h: Int, _ x: Float, _ y: Float) -> Float {
        let cx = min(max(x, 0), Float(w - 1)), cy = min(max(y, 0), Float(h - 1))
        let x0 = min(Int(cx), w - 2 < 0 ? 0 : w - 2), y0 = min(Int(cy), h - 2 < 0 ? 0 : h - 2)
        let fx = cx - Float(x0), fy = cy - Float(y0)
        let r0 = s + y0 * w + x0, r1 = r0 + w
        let top = r0[0] + (r0[1] - r0[0]) * fx
        let bottom = r1[0] + (r1[1] - r1[0]) * fx
        return top + (bottom - top) * fy
    }
}
