// AreaDownscaler: the one box (area-average) downscaler of 8-bit planes — the matcher's
// processing resolution, the stabilizer's pyramid base and the resizer's preview frames all
// come from it. Every source pixel counts once, so noise averages out and nothing aliases.
import CineMedia

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
    static func downscale(
        _ plane: Plane, rows: Range<Int>, width: Int, height: Int, into out: UnsafeMutablePointer<UInt8>, stride: Int,
        accumulator acc: UnsafeMutablePointer<UInt32>
    ) {
        downscale(plane, rows: rows, width: width, height: height, bytes: UnsafeMutableRawPointer(out), floats: nil,
                  stride: stride, accumulator: acc)
    }

    /// The same means as exact `Float`s (`out` row `y` at `out + y · stride` floats).
    static func downscale(
        _ plane: Plane, rows: Range<Int>, width: Int, height: Int, into out: UnsafeMutablePointer<Float>, stride: Int,
        accumulator acc: UnsafeMutablePointer<UInt32>
    ) {
        downscale(plane, rows: rows, width: width, height: height, bytes: nil, floats: out, stride: stride,
                  accumulator: acc)
    }

    /// One loop for both sample types; the type is chosen per row, never per pixel.
    private static func downscale(
        _ plane: Plane, rows: Range<Int>, width: Int, height: Int, bytes: UnsafeMutableRawPointer?,
        floats: UnsafeMutablePointer<Float>?, stride: Int, accumulator acc: UnsafeMutablePointer<UInt32>
    ) {
        let sw = plane.width, sh = plane.height
        for y in rows {
            let y0 = y * sh / height, y1 = max(y0 + 1, (y + 1) * sh / height)
            let d = bytes.map { ($0 + y * stride).assumingMemoryBound(to: UInt8.self) }
            if let d, y1 == y0 + 1 && sw == width {
                // Scale 1 (rows and columns): a copy.
                d.update(from: plane.row(y0, as: UInt8.self), count: width)
                continue
            }
            acc.update(repeating: 0, count: sw)
            for sy in y0..<y1 {
                let src = plane.row(sy, as: UInt8.self)
                for x in 0..<sw { acc[x] &+= UInt32(src[x]) }
            }
            let rowsSummed = UInt32(y1 - y0)
            if let d, sw == width * 2 && rowsSummed == 2 {
                // Exact 2× reduction: a fixed 2-tap sum and a shift.
                for x in 0..<width { d[x] = UInt8(truncatingIfNeeded: (acc[2 * x] &+ acc[2 * x + 1] &+ 2) >> 2) }
                continue
            }
            if let d, sw == width * 4 && rowsSummed == 4 {
                // Exact 4× reduction (1080p → 270p): a fixed 4-tap sum the compiler unrolls.
                for x in 0..<width {
                    let s = acc[4 * x] &+ acc[4 * x + 1] &+ acc[4 * x + 2] &+ acc[4 * x + 3]
                    d[x] = UInt8(truncatingIfNeeded: (s &+ 8) >> 4)
                }
                continue
            }
            // Output x sums accumulator columns [x·W/width, max(that + 1, (x+1)·W/width)).
            if let d {
                for x in 0..<width {
                    let x0 = x * sw / width, x1 = max(x0 + 1, (x + 1) * sw / width)
                    var s: UInt32 = 0
                    for sx in x0..<x1 { s &+= acc[sx] }
                    let n = UInt32(x1 - x0) * rowsSummed
                    d[x] = UInt8(truncatingIfNeeded: (s &+ n / 2) / n)
                }
            } else if let f = floats.map({ $0 + y * stride }) {
                for x in 0..<width {
                    let x0 = x * sw / width, x1 = max(x0 + 1, (x + 1) * sw / width)
                    var s: UInt32 = 0
                    for sx in x0..<x1 { s &+= acc[sx] }
                    f[x] = Float(s) / Float(UInt32(x1 - x0) * rowsSummed)
                }
            }
        }
    }
}
