// RemapTable: a warp's source coordinates turned, once, into integer taps with 7-bit bilinear
// weights, so that warping a frame is four byte loads and a few integer operations per pixel.

import CineMedia

/// A precomputed bilinear warp from a source plane to an output plane.
struct RemapTable: Sendable {
    /// One output pixel: the top-left source sample (x < 0: outside the source) and the weights
    /// of the right and the lower neighbours, in 1/128.
    struct Tap: Sendable {
        var x: Int16
        var y: Int16
        var fx: UInt8
        var fy: UInt8
        static let outside = Tap(x: -1, y: 0, fx: 0, fy: 0)
    }

    let width: Int
    let height: Int
    let taps: [Tap]

    /// Builds the table for an output of `width` × `height` from `source(u, v)`, the source
    /// coordinates of output pixel (u, v), or `nil` where it falls outside. Coordinates must lie
    /// in `0 … sourceWidth − 1` × `0 … sourceHeight − 1`.
    init(width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, source: (Int, Int) -> SIMD2<Float>?) {
        precondition(sourceWidth >= 2 && sourceHeight >= 2 && sourceWidth <= Int(Int16.max) && sourceHeight <= Int(Int16.max))
        self.width = width
        self.height = height
        var taps = [Tap](repeating: .outside, count: width * height)
        for v in 0..<height {
            for u in 0..<width {
                guard let p = source(u, v) else { continue }
                // The last column or row: step back one sample and weigh the far one fully.
                let x0 = min(Int(p.x), sourceWidth - 2), y0 = min(Int(p.y), sourceHeight - 2)
                let fx = ((p.x - Float(x0)) * 128).rounded(), fy = ((p.y - Float(y0)) * 128).rounded()
                taps[v * width + u] = Tap(x: Int16(x0), y: Int16(y0), fx: UInt8(min(128, fx)), fy: UInt8(min(128, fy)))
            }
        }
        self.taps = taps
    }

    /// Warps `src` into `dst` (of the table's size); pixels outside the source get `outside`.
    func apply(_ src: Plane, into dst: Plane, outside: UInt8) {
        let stride = src.stride
        let base = src.base.assumingMemoryBound(to: UInt8.self)
        taps.withUnsafeBufferPointer { taps in
            for v in 0..<height {
                let row = dst.row(v, as: UInt8.self)
                let line = v * width
                for u in 0..<width {
                    let t = taps[line + u]
                    if t.x < 0 {
                        row[u] = outside
                        continue
                    }
                    // Wrapping arithmetic: the values cannot overflow, and unchecked it is branch-free.
                    let p = base + (Int(t.y) &* stride &+ Int(t.x))
                    let fx = Int32(t.fx), fy = Int32(t.fy)
                    let a = Int32(p[0]), b = Int32(p[1]), c = Int32(p[stride]), d = Int32(p[stride &+ 1])
                    let top = (a &<< 7) &+ (b &- a) &* fx, bottom = (c &<< 7) &+ (d &- c) &* fx
                    row[u] = UInt8(truncatingIfNeeded: ((top &<< 7) &+ (bottom &- top) &* fy &+ 8192) &>> 14)
                }
            }
        }
    }
}
