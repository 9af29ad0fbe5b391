// StabilizationFeatureTracker: follows points from one frame's luma pyramid into the next with
// pyramidal Lucas-Kanade (Bouguet's formulation), coarse level first.

import Foundation

/// Pyramidal Lucas-Kanade point tracking.
enum StabilizationFeatureTracker {
    /// Where each of `points` (level-0 pixels of `previous`) lies in `next`, or nil when it was
    /// lost (flat window, no convergence, or left the frame).
    ///
    /// Cost per point and level: `(2r+1)²` template samples with gradients (5 bilinear samples
    /// each) once, then per iteration `(2r+1)²` bilinear samples of `next` and 6 multiply-adds;
    /// with r = 4, 3 levels and ≤ 12 iterations ≈ 0.1 Mflop per point, ≈ 15 Mflop for 144 points,
    /// split over both cores.
    static func track(
        _ points: [SIMD2<Float>], from previous: StabilizationLumaPyramid,
        to next: StabilizationLumaPyramid, radius: Int, iterations: Int
    ) -> [SIMD2<Float>?] {
        var result = [SIMD2<Float>?](repeating: nil, count: points.count)
        guard !points.isEmpty else { return result }
        let jobs = points.count >= 48 ? 2 : 1
        result.withUnsafeMutableBufferPointer { out in
            let shared = StereoSharedPointer(out.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: jobs) { job in
                let lo = points.count * job / jobs, hi = points.count * (job + 1) / jobs
                let side = 2 * radius + 1
                // Per-job scratch: template, gradients.
                var scratch = [Float](repeating: 0, count: 3 * side * side)
                scratch.withUnsafeMutableBufferPointer { buf in
                    for i in lo..<hi {
                        shared.pointer[i] = trackOne(points[i], previous, next, radius, iterations, buf.baseAddress!)
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
        var guess = SIMD2<Float>(0, 0)
        for level in stride(from: levels - 1, through: 0, by: -1) {
            let factor = Float(1 << level)
            // Pixel centres: level coordinate = (x + 0.5) / 2^L − 0.5.
            let p = (point + 0.5) / factor - 0.5
            let a = previous.levels[level], b = next.levels[level]
            var gxx: Float = 0, gxy: Float = 0, gyy: Float = 0
            a.pixels.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                var k = 0
                for j in -radius...radius {
                    for i in -radius...radius {
                        let x = p.x + Float(i), y = p.y + Float(j)
                        tpl[k] = sample(s, a.width, a.height, x, y)
                        let gx = 0.5 * (sample(s, a.width, a.height, x + 1, y) - sample(s, a.width, a.height, x - 1, y))
                        let gy = 0.5 * (sample(s, a.width, a.height, x, y + 1) - sample(s, a.width, a.height, x, y - 1))
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
                    var bx: Float = 0, by: Float = 0
                    var k = 0
                    for j in -radius...radius {
                        for i in -radius...radius {
                            let diff = tpl[k] - sample(s, b.width, b.height, q.x + Float(i), q.y + Float(j))
                            bx += diff * gxs[k]
                            by += diff * gys[k]
                            k += 1
                        }
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
