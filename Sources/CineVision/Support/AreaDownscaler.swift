// AreaDownscaler: the one box (area-average) downscaler of 8-bit planes — the matcher's
// processing resolution, the stabilizer's pyramid base and the resizer's preview frames all
// come from it. Every source pixel counts once, so noise averages out and nothing aliases.
import CineMedia

/// A sample type an area mean can be stored as.
protocol AreaMeanSample {
    /// The mean of `count` 8-bit samples that add up to `sum`.
    static func mean(sum: UInt32, count: UInt32) -> Self
}

extension UInt8: AreaMeanSample {
    /// Rounded to the nearest byte.
    @inline(__always) static func mean(sum: UInt32, count: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (sum &+ count / 2) / count)
    }
}

extension Float: AreaMeanSample {
    /// Exact.
    @inline(__always) static func mean(sum: UInt32, count: UInt32) -> Float { Float(sum) / Float(count) }
}

/// Area-average resampling of an 8-bit plane.
enum AreaDownscaler {
    /// Resamples `plane` (8-bit samples) to `width` × `height`, writing output rows `rows` to
    /// `out` (row `y` at `out + y · stride`). Output pixel x covers source columns
    /// `[x·W/width, max(that + 1, (x+1)·W/width))` (integer bounds), likewise for rows, so
    /// enlarging repeats pixels. `accumulator` must hold `plane.width` UInt32s.
    ///
    /// Cost: every source byte is read once and added into a UInt32 row accumulator
    /// (vectorisable add), then each output pixel sums its span of the accumulator:
    /// ≈ 1 load + 1 add per source pixel, 1 divide per output pixel (a shift for the exact
    /// 2× and 4× reductions into bytes).
    static func downscale<Out: AreaMeanSample>(
        _ plane: Plane, rows: Range<Int>, width: Int, height: Int, into out: UnsafeMutablePointer<Out>, stride: Int,
        accumulator acc: UnsafeMutablePointer<UInt32>
    ) {
        let sw = plane.width, sh = plane.height
        for y in rows {
            let y0 = y * sh / height, y1 = max(y0 + 1, (y + 1) * sh / height)
            let dst = out + y * stride
            if y1 == y0 + 1 && sw == width, Out.self == UInt8.self {
                // Scale 1 (rows and columns): a copy.
                UnsafeMutableRawPointer(dst).copyMemory(from: plane.row(y0, as: UInt8.self), byteCount: width)
                continue
            }
            acc.update(repeating: 0, count: sw)
            for sy in y0..<y1 {
                let src = plane.row(sy, as: UInt8.self)
                for x in 0..<sw { acc[x] &+= UInt32(src[x]) }
            }
            let rowsSummed = UInt32(y1 - y0)
            if Out.self == UInt8.self && sw == width * 2 && rowsSummed == 2 {
                // Exact 2× reduction: a fixed 2-tap sum and a shift.
                let d = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width { d[x] = UInt8(truncatingIfNeeded: (acc[2 * x] &+ acc[2 * x + 1] &+ 2) >> 2) }
                continue
            }
            if Out.self == UInt8.self && sw == width * 4 && rowsSummed == 4 {
                // Exact 4× reduction (1080p → 270p): a fixed 4-tap sum the compiler unrolls.
                let d = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    let s = acc[4 * x] &+ acc[4 * x + 1] &+ acc[4 * x + 2] &+ acc[4 * x + 3]
                    d[x] = UInt8(truncatingIfNeeded: (s &+ 8) >> 4)
                }
                continue
            }
            for x in 0..<width {
                let x0 = x * sw / width, x1 = max(x0 + 1, (x + 1) * sw / width)
                var s: UInt32 = 0
                for sx in x0..<x1 { s &+= acc[sx] }
                dst[x] = Out.mean(sum: s, count: UInt32(x1 - x0) * rowsSummed)
            }
        }
    }
}
