// RemapTable: a warp's source coordinates turned, once, into integer taps with 7-bit bilinear
// weights, so that warping a frame is two 16-bit loads per pixel and vector arithmetic on eight
// pixels at a time.

import CineMedia

/// A precomputed bilinear warp from a source plane to an output plane.
///
/// Stored as columns (source x, source y, and the two weights per output pixel) so that eight
/// output pixels at a time take their coordinates and weights in vector loads; only the four
/// source bytes of each pixel are fetched one pixel at a time (two 16-bit loads).
struct RemapTable: Sendable {
    /// Each output pixel's top-left source sample column; −1 where the pixel is outside the source.
    let xs: [Int16]
    /// Each output pixel's top-left source sample row.
    let ys: [Int16]
    /// The right neighbour's weight, in 1/128.
    let fxs: [UInt8]
    /// The lower neighbour's weight, in 1/128.
    let fys: [UInt8]
    let width: Int
    let height: Int

    /// Builds the table for an output of `width` × `height` from `source(u, v)`, the source
    /// coordinates of output pixel (u, v), or `nil` where it falls outside. Coordinates must lie
    /// in `0 … sourceWidth − 1` × `0 … sourceHeight − 1`.
    init(width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, source: (Int, Int) -> SIMD2<Float>?) {
        precondition(sourceWidth >= 2 && sourceHeight >= 2 && sourceWidth <= Int(Int16.max) && sourceHeight <= Int(Int16.max))
        self.width = width
        self.height = height
        var xs = [Int16](repeating: -1, count: width * height), ys = [Int16](repeating: 0, count: width * height)
        var fxs = [UInt8](repeating: 0, count: width * height), fys = [UInt8](repeating: 0, count: width * height)
        for v in 0..<height {
            for u in 0..<width {
                guard let p = source(u, v) else { continue }
                // The last column or row: step back one sample and weigh the far one fully.
                let x0 = min(Int(p.x), sourceWidth - 2), y0 = min(Int(p.y), sourceHeight - 2)
                let fx = ((p.x - Float(x0)) * 128).rounded(), fy = ((p.y - Float(y0)) * 128).rounded()
                let i = v * width + u
                (xs[i], ys[i], fxs[i], fys[i]) = (Int16(x0), Int16(y0), UInt8(min(128, fx)), UInt8(min(128, fy)))
            }
        }
        (self.xs, self.ys, self.fxs, self.fys) = (xs, ys, fxs, fys)
    }

    /// Warps `src` into `dst` (of the table's size); pixels outside the source get `outside`.
    func apply(_ src: Plane, into dst: Plane, outside: UInt8) {
        let stride = src.stride
        let base = UnsafeRawPointer(src.base)
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                fxs.withUnsafeBufferPointer { fxs in
                    fys.withUnsafeBufferPointer { fys in
                        let taps = Taps(xs: xs.baseAddress!, ys: ys.baseAddress!, fxs: fxs.baseAddress!, fys: fys.baseAddress!)
                        for v in 0..<height {
                            taps.warpRow(v * width, count: width, base: base, stride: stride,
                                         into: dst.row(v, as: UInt8.self), outside: outside)
                        }
                    }
                }
            }
        }
    }

    /// The table's columns, as pointers for one warp.
    private struct Taps {
        let xs: UnsafePointer<Int16>
        let ys: UnsafePointer<Int16>
        let fxs: UnsafePointer<UInt8>
        let fys: UnsafePointer<UInt8>

        /// Warps `count` output pixels from tap `first` on into `row`.
        @inline(__always)
        func warpRow(_ first: Int, count: Int, base: UnsafeRawPointer, stride: Int,
                     into row: UnsafeMutablePointer<UInt8>, outside: UInt8) {
            var u = 0
            let stride32 = Int32(truncatingIfNeeded: stride)
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 16) { samples in
                let s = samples.baseAddress!
                while u + 8 <= count {
                    let i = first + u
                    let x = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(xs + i).loadUnaligned(as: SIMD8<Int16>.self))
                    let y = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(ys + i).loadUnaligned(as: SIMD8<Int16>.self))
                    // All ones where the pixel is outside (x = −1), else zero: masks in plain bit
                    // operations, which vectorise (SIMD comparisons go lane by lane).
                    let outsideMask = x &>> 31
                    // Outside pixels read the source's first sample (always there) and are replaced below.
                    let offsets = (y &* stride32 &+ x) & ~outsideMask
                    // The two upper and the two lower samples of each pixel, as one 16-bit load each.
                    for k in 0..<8 {
                        let p = base + Int(offsets[k])
                        s[k] = p.loadUnaligned(as: UInt16.self)
                        s[k + 8] = (p + stride).loadUnaligned(as: UInt16.self)
                    }
                    // Both rows' pairs in one vector: horizontal pass in 16-bit lanes (its true
                    // result, 0 … 32640, fits; wrapping on the way is harmless mod 2¹⁶).
                    let pairs = UnsafeRawPointer(s).loadUnaligned(as: SIMD16<UInt16>.self)
                    let fx8 = UnsafeRawPointer(fxs + i).loadUnaligned(as: SIMD8<UInt8>.self)
                    let fx = SIMD16<Int16>(truncatingIfNeeded: SIMD16<UInt8>(lowHalf: fx8, highHalf: fx8))
                    let near = SIMD16<Int16>(truncatingIfNeeded: pairs & 0xFF), far = SIMD16<Int16>(truncatingIfNeeded: pairs &>> 8)
                    let rows = (near &<< 7) &+ (far &- near) &* fx
                    let top = SIMD8<Int32>(truncatingIfNeeded: rows.lowHalf), bottom = SIMD8<Int32>(truncatingIfNeeded: rows.highHalf)
                    let fy = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(fys + i).loadUnaligned(as: SIMD8<UInt8>.self))
                    let value = ((top &<< 7) &+ (bottom &- top) &* fy &+ 8192) &>> 14
                    let bytes = SIMD8<UInt8>(truncatingIfNeeded: (value & ~outsideMask) | (outsideMask & Int32(outside)))
                    UnsafeMutableRawPointer(row + u).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
                    u += 8
                }
            }
            while u < count {
                let i = first + u
                if xs[i] < 0 {
                    row[u] = outside
                } else {
                    // Wrapping arithmetic: the values cannot overflow, and unchecked it is branch-free.
                    let p = base.assumingMemoryBound(to: UInt8.self) + (Int(ys[i]) &* stride &+ Int(xs[i]))
                    let fx = Int32(fxs[i]), fy = Int32(fys[i])
                    let a = Int32(p[0]), b = Int32(p[1]), c = Int32(p[stride]), d = Int32(p[stride &+ 1])
                    let top = (a &<< 7) &+ (b &- a) &* fx, bottom = (c &<< 7) &+ (d &- c) &* fx
                    row[u] = UInt8(truncatingIfNeeded: ((top &<< 7) &+ (bottom &- top) &* fy &+ 8192) &>> 14)
                }
                u += 1
            }
        }
    }
}
