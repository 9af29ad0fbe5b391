// ImageResizer: area-average downscaling of I420 / gray8 frames (each output pixel the mean of
// the source pixels it covers), on both cores — a preview or viewfinder resolution from a
// full-resolution camera.
import CineMedia
import Dispatch

/// Downscales planar 8-bit images by area averaging (box filter over each output pixel's
/// footprint), which does not alias the way point sampling does. Upscaling repeats pixels.
public struct ImageResizer: Sendable {
    public init() {}

    /// `image` (I420 or gray8) at `width` × `height` (I420: both even). Cost: one read of every
    /// source byte, split over two threads by rows.
    public func resize(_ image: Image, width: Int, height: Int, pool: ImagePool? = nil) -> Image {
        precondition(image.format == .i420 || image.format == .gray8, "resize takes I420 or gray8")
        let out = pool?.makeImage(width: width, height: height, format: image.format)
            ?? Image(width: width, height: height, format: image.format)
        let planes = image.format == .i420 ? 3 : 1
        // Jobs: (plane, half of its rows).
        DispatchQueue.concurrentPerform(iterations: planes * 2) { job in
            let p = job / 2, half = job % 2
            let src = image.plane(p), dst = out.plane(p)
            let rows = half == 0 ? 0..<(dst.height / 2) : (dst.height / 2)..<dst.height
            Self.area(src, into: dst, rows: rows)
        }
        return out
    }

    /// Rows `rows` of `dst`, each pixel the mean of the `src` pixels it covers (`AreaDownscaler`).
    static func area(_ src: Plane, into dst: Plane, rows: Range<Int>) {
        if src.width == 2 * dst.width && src.height == 2 * dst.height { return halve(src, into: dst, rows: rows) }
        let acc = UnsafeMutablePointer<UInt32>.allocate(capacity: src.width)
        defer { acc.deallocate() }
        AreaDownscaler.downscale(src, rows: rows, width: dst.width, height: dst.height,
                                 into: dst.row(0, as: UInt8.self), stride: dst.stride, accumulator: acc)
    }

    /// The common exact halving (1080p → 540p): each output byte the rounded mean of a 2×2 block,
    /// sixteen at a time.
    static func halve(_ src: Plane, into dst: Plane, rows: Range<Int>) {
        let dw = dst.width
        for y in rows {
            let a = src.row(2 * y, as: UInt8.self), b = src.row(2 * y + 1, as: UInt8.self)
            let out = dst.row(y, as: UInt8.self)
            var x = 0
            while x + 16 <= dw {
                let ra = UnsafeRawPointer(a + 2 * x).loadUnaligned(as: SIMD32<UInt8>.self)
                let rb = UnsafeRawPointer(b + 2 * x).loadUnaligned(as: SIMD32<UInt8>.self)
                let wa = SIMD32<UInt16>(truncatingIfNeeded: ra), wb = SIMD32<UInt16>(truncatingIfNeeded: rb)
                let sum = wa &+ wb
                let even = SIMD16<UInt16>(sum[0], sum[2], sum[4], sum[6], sum[8], sum[10], sum[12], sum[14],
                                          sum[16], sum[18], sum[20], sum[22], sum[24], sum[26], sum[28], sum[30])
                let odd = SIMD16<UInt16>(sum[1], sum[3], sum[5], sum[7], sum[9], sum[11], sum[13], sum[15],
                                         sum[17], sum[19], sum[21], sum[23], sum[25], sum[27], sum[29], sum[31])
                let mean = (even &+ odd &+ 2) &>> 2
                UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: mean), as: SIMD16<UInt8>.self)
                x += 16
            }
            while x < dw {
                out[x] = UInt8((UInt16(a[2 * x]) + UInt16(a[2 * x + 1]) + UInt16(b[2 * x]) + UInt16(b[2 * x + 1]) + 2) >> 2)
                x += 1
            }
        }
    }
}
