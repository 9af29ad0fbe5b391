// StereoDownscaler: box-filters a full-resolution luma plane down to the matcher's processing
// resolution (area averaging, so every source pixel counts once and noise averages out).
import CineMedia

/// Area-average downscaling of an 8-bit plane.
enum StereoDownscaler {
    /// Resamples `plane` (8-bit samples) to `width` × `height` into `out` (row stride `width`).
    /// Output pixel x covers source columns `[x·W/width, (x+1)·W/width)` (integer bounds), and
    /// likewise for rows. `accumulator` must hold `plane.width` UInt32s.
    ///
    /// Cost: every source byte is read once and added into a UInt32 row accumulator
    /// (vectorisable add), then each output pixel sums its span of the accumulator:
    /// ≈ 1 load + 1 add per source pixel, 1 divide per output pixel.
    static func downscale(
        _ plane: Plane, rows: Range<Int>, width: Int, height: Int, into out: UnsafeMutablePointer<UInt8>,
        accumulator acc: UnsafeMutablePointer<UInt32>
    ) {
        let sw = plane.width, sh = plane.height
        if sw == width && sh == height {
            // Scale 1: a copy.
            for y in rows { (out + y * width).update(from: plane.row(y, as: UInt8.self), count: width) }
            return
        }
        for y in rows {
            let y0 = y * sh / height, y1 = max(y0 + 1, (y + 1) * sh / height)
            acc.update(repeating: 0, count: sw)
            for sy in y0..<y1 {
                let src = plane.row(sy, as: UInt8.self)
                for x in 0..<sw { acc[x] &+= UInt32(src[x]) }
            }
            let rowsSummed = UInt32(y1 - y0)
            let dst = out + y * width
            if sw == width * 2 && rowsSummed == 2 {
                // Exact 2× reduction: a fixed 2-tap sum.
                for x in 0..<width {
                    dst[x] = UInt8(truncatingIfNeeded: (acc[2 * x] &+ acc[2 * x + 1] &+ 2) >> 2)
                }
                continue
            }
            if sw == width * 4 && rowsSummed == 4 {
                // Exact 4× reduction (1080p → 270p): a fixed 4-tap sum the compiler unrolls.
                for x in 0..<width {
                    let s = acc[4 * x] &+ acc[4 * x + 1] &+ acc[4 * x + 2] &+ acc[4 * x + 3]
                    dst[x] = UInt8(truncatingIfNeeded: (s &+ 8) >> 4)
                }
                continue
            }
            for x in 0..<width {
                let x0 = x * sw / width, x1 = max(x0 + 1, (x + 1) * sw / width)
                var s: UInt32 = 0
                for sx in x0..<x1 { s &+= acc[sx] }
                let n = UInt32(x1 - x0) * rowsSummed
                dst[x] = UInt8(truncatingIfNeeded: (s + n / 2) / n)
            }
        }
    }
}
