// HOGFeatureMap: Dalal and Triggs' histograms of oriented gradients over a whole 8-bit plane,
// laid out as OpenCV's HOGDescriptor lays out a window's, so its published SVM applies.
import Foundation

/// The normalised 16 × 16 block histograms of an 8-bit plane on an 8-pixel grid, as OpenCV's
/// `HOGDescriptor` (64 × 128 window defaults) computes them: square-root gamma, centred
/// gradients, 9 unsigned orientation bins interpolated linearly, four 8 × 8 cells per block
/// interpolated bilinearly under a Gaussian window (σ = 4 px), L2-Hys normalisation (clip 0.2).
///
/// Block (`bx`, `by`) covers pixels `8·bx ..< 8·bx + 16` × `8·by ..< 8·by + 16`; its 36 values
/// are cell (0,0), (0,1), (1,0), (1,1) — cell x major, as OpenCV orders them — each 9 bins,
/// stored from ``block(_:_:)`` with ``stride`` floats per block (zero padded to 40, for SIMD).
///
/// Cost: a gradient and two scattered adds per pixel, the vertical Gaussian pass per block
/// (about 9 multiply-adds per pixel, vectorised), rows shared out over `threads` cores.
/// Against OpenCV's descriptor of the same window the values correlate at 0.99 (its angles
/// come from a table, and its windows see no pixels beyond their borders).
public struct HOGFeatureMap: ~Copyable {
    /// Floats per block in ``values``: 36 and 4 zeros.
    public static let stride = 40
    /// Blocks across and down.
    public let blocksWide: Int, blocksHigh: Int
    /// `blocksHigh × blocksWide` blocks, row by row, ``stride`` floats each.
    public let values: UnsafeMutablePointer<Float>

    /// The histograms of `planes` (one for gray, three for colour: each pixel's gradient is
    /// the strongest of its planes', as OpenCV takes the strongest of B, G and R), each
    /// `width` × `height` with `stride` bytes per row, at least 16 × 16.
    public init(_ planes: [UnsafePointer<UInt8>], width: Int, height: Int, stride: Int, threads: Int = 1) {
        precondition(!planes.isEmpty, "HOG needs a plane")
        precondition(width >= 16 && height >= 16, "HOG needs at least one 16 × 16 block")
        let bw = (width - 16) / 8 + 1, bh = (height - 16) / 8 + 1
        blocksWide = bw
        blocksHigh = bh
        values = .allocate(capacity: bw * bh * Self.stride)
        // Per image row: each block column's two cells' 9 bins, weighted along x (18 floats).
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: height * bw * 18)
        defer { rows.deallocate() }
        let tables = HOGTables.shared
        RowBands.run(0..<height, bands: threads) { _, band in
            let magnitude = UnsafeMutablePointer<Float>.allocate(capacity: 2 * (width + 8))
            let next = magnitude + width + 8
            let bins = UnsafeMutablePointer<Int32>.allocate(capacity: width + 8)
            let segments = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 10 * (bw + 1))
            defer { magnitude.deallocate(); bins.deallocate(); segments.deallocate() }
            for y in band {
                HOGFeatureMap.gradients(planes, width: width, height: height, stride: stride, row: y,
                                        magnitude: magnitude, next: next, bins: bins)
                HOGFeatureMap.rowHistograms(magnitude: magnitude, next: next, bins: bins, blocksWide: bw, tables: tables,
                                            segments: segments, into: rows + y * bw * 18)
            }
        }
        let values = values
        RowBands.run(0..<bh, bands: threads) { _, band in
            for by in band {
                for bx in 0..<bw {
                    HOGFeatureMap.block(rows: rows, blocksWide: bw, bx: bx, by: by, tables: tables,
                                        into: values + (by * bw + bx) * Self.stride)
                }
            }
        }
    }

    deinit { values.deallocate() }

    /// The first of block (`bx`, `by`)'s ``stride`` floats.
    @inline(__always) public func block(_ bx: Int, _ by: Int) -> UnsafeMutablePointer<Float> {
        values + (by * blocksWide + bx) * Self.stride
    }

    /// One row's gradient magnitudes split between each pixel's two nearest orientation bins
    /// (`magnitude[x]` to `bins[x]`, `next[x]` to the next bin, modulo 9), eight
    /// pixels at a time.
    private static func gradients(_ planes: [UnsafePointer<UInt8>], width: Int, height: Int, stride: Int, row y: Int,
                                  magnitude: UnsafeMutablePointer<Float>, next: UnsafeMutablePointer<Float>,
                                  bins: UnsafeMutablePointer<Int32>) {
        // Borders reflect without repeating the edge (OpenCV's BORDER_REFLECT_101).
        let upRow = (y == 0 ? min(1, height - 1) : y - 1) * stride
        let downRow = (y == height - 1 ? max(0, height - 2) : y + 1) * stride
        @inline(__always) func gamma(_ p: UnsafePointer<UInt8>, _ x: Int) -> SIMD8<Float> {
            SIMD8<Float>(UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<UInt8>.self)).squareRoot()
        }
        @inline(__always) func store(_ x: Int, _ dx: SIMD8<Float>, _ dy: SIMD8<Float>) {
            let (b, m0, m1) = HOGFeatureMap.orientation(dx, dy)
            UnsafeMutableRawPointer(bins + x).storeBytes(of: b, as: SIMD8<Int32>.self)
            UnsafeMutableRawPointer(magnitude + x).storeBytes(of: m0, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(next + x).storeBytes(of: m1, as: SIMD8<Float>.self)
        }
        var x = 1
        while x + 9 <= width {
            var dx = SIMD8<Float>(), dy = SIMD8<Float>(), best = SIMD8<Float>(repeating: -1)
            for plane in planes {
                let here = plane + y * stride
                let px = gamma(here, x + 1) - gamma(here, x - 1), py = gamma(plane + downRow, x) - gamma(plane + upRow, x)
                let m = px * px + py * py, stronger = m .> best
                dx.replace(with: px, where: stronger)
                dy.replace(with: py, where: stronger)
                best.replace(with: m, where: stronger)
            }
            store(x, dx, dy)
            x += 8
        }
        // The edges and the last pixels, one at a time in lane 0.
        func single(_ x: Int) {
            let left = x == 0 ? min(1, width - 1) : x - 1, right = x == width - 1 ? max(0, width - 2) : x + 1
            var dx: Float = 0, dy: Float = 0, best: Float = -1
            for plane in planes {
                let here = plane + y * stride
                let px = Float(here[right]).squareRoot() - Float(here[left]).squareRoot()
                let py = Float(plane[downRow + x]).squareRoot() - Float(plane[upRow + x]).squareRoot()
                if px * px + py * py > best { (dx, dy, best) = (px, py, px * px + py * py) }
            }
            let (b, m0, m1) = HOGFeatureMap.orientation(SIMD8(repeating: dx), SIMD8(repeating: dy))
            bins[x] = b[0]
            magnitude[x] = m0[0]
            next[x] = m1[0]
        }
        single(0)
        for x in x..<width { single(x) }
    }

    /// Eight gradients' first bin and their magnitudes' shares of it and of the next bin.
    @inline(__always) static func orientation(_ gx: SIMD8<Float>, _ gy: SIMD8<Float>)
        -> (SIMD8<Int32>, SIMD8<Float>, SIMD8<Float>) {
        let m = (gx * gx + gy * gy).squareRoot()
        // Unsigned orientation in [0, π): fold into the upper half plane.
        let flip = (gy .< 0) .| ((gy .== 0) .& (gx .< 0))
        let dx = gx.replacing(with: -gx, where: flip), dy = gy.replacing(with: -gy, where: flip)
        let ax = dx.replacing(with: -dx, where: dx .< 0)
        let swap = dy .> ax
        let num = ax.replacing(with: dy, where: .!swap), den = dy.replacing(with: ax, where: .!swap)
        let z = (num / den).replacing(with: 0, where: den .== 0)
        let z2 = z * z
        var t = SIMD8<Float>(repeating: -0.01172120)
        t = t * z2 + 0.05265332
        t = t * z2 - 0.11643287
        t = t * z2 + 0.19354346
        t = t * z2 - 0.33262347
        t = t * z2 + 0.99997726
        var a = z * t
        a = a.replacing(with: Float.pi / 2 - a, where: swap)
        a = a.replacing(with: Float.pi - a, where: dx .< 0)
        let position = a * (9 / Float.pi) - 0.5
        let floor = position.rounded(.down)
        let f = position - floor
        // position is in [-0.5, 8.5): bin -1 is bin 8. An integral float below 2²² plus 1.5·2²³
        // holds the integer in its low mantissa bits.
        let bin = floor.replacing(with: 8, where: floor .< 0)
        let b = unsafeBitCast(bin + 12_582_912, to: SIMD8<Int32>.self) &- 0x4B40_0000
        return (b, m * (1 - f), m * f)
    }

    /// One row's histograms per block column. Each 8-pixel segment sums, per bin, a 4-lane
    /// vector: its pixels' weights for the two places a segment takes in a block (left half,
    /// right half) times the two cells along x; block `s` is segment `s`'s left-half sums plus
    /// segment `s + 1`'s right-half sums. `segments` holds `(blocksWide + 1) × 10` vectors.
    private static func rowHistograms(magnitude: UnsafePointer<Float>, next: UnsafePointer<Float>, bins: UnsafePointer<Int32>,
                                      blocksWide bw: Int, tables: HOGTables, segments: UnsafeMutablePointer<SIMD4<Float>>,
                                      into out: UnsafeMutablePointer<Float>) {
        tables.segmentWeight.withUnsafeBufferPointer { weight in
            for s in 0...bw {
                let acc = segments + 10 * s
                acc.update(repeating: SIMD4<Float>(), count: 10)
                for i in 0..<8 {
                    let x = 8 * s + i, b = Int(bins[x])
                    acc[b] += weight[i] * magnitude[x]
                    acc[b + 1] += weight[i] * next[x]
                }
                acc[0] += acc[9]  // the bin after 8 is 0
            }
        }
        for s in 0..<bw {
            let left = segments + 10 * s, right = segments + 10 * (s + 1), h = out + s * 18
            for k in 0..<9 {
                h[k] = left[k][0] + right[k][2]
                h[9 + k] = left[k][1] + right[k][3]
            }
        }
    }

    /// Block (`bx`, `by`) from the rows' x-weighted histograms: the y weights, then L2-Hys.
    private static func block(rows: UnsafePointer<Float>, blocksWide bw: Int, bx: Int, by: Int, tables: HOGTables,
                              into out: UnsafeMutablePointer<Float>) {
        var top = (SIMD16<Float>(), SIMD2<Float>()), bottom = top
        for ly in 0..<16 {
            let r = rows + ((by * 8 + ly) * bw + bx) * 18
            let v = UnsafeRawPointer(r).loadUnaligned(as: SIMD16<Float>.self)
            let tail = SIMD2<Float>(r[16], r[17])
            let w0 = tables.cellWeight[2 * ly], w1 = tables.cellWeight[2 * ly + 1]
            top.0 += v * w0; top.1 += tail * w0
            bottom.0 += v * w1; bottom.1 += tail * w1
        }
        // Row histograms hold (cell x 0: 9 bins, cell x 1: 9 bins); a block is cell (x, y) x-major.
        for i in 0..<9 {
            out[i] = top.0[i]                                  // (0, 0)
            out[9 + i] = bottom.0[i]                           // (0, 1)
            out[18 + i] = i < 7 ? top.0[9 + i] : top.1[i - 7]  // (1, 0)
            out[27 + i] = i < 7 ? bottom.0[9 + i] : bottom.1[i - 7]  // (1, 1)
        }
        for i in 36..<Self.stride { out[i] = 0 }
        var sum: Float = 0
        for i in 0..<36 { sum += out[i] * out[i] }
        var scale = 1 / (sum.squareRoot() + 36 * 0.1)
        sum = 0
        for i in 0..<36 {
            let v = min(out[i] * scale, 0.2)
            out[i] = v
            sum += v * v
        }
        scale = 1 / (sum.squareRoot() + 1e-3)
        for i in 0..<36 { out[i] *= scale }
    }
}

/// The constant tables of ``HOGFeatureMap``.
final class HOGTables: Sendable {
    static let shared = HOGTables()
    /// For each position 0..<16 along a block's side, its weight to the first and to the second
    /// cell on that side: the cells' linear interpolation (tapering to the block's edges) times
    /// the block's Gaussian (σ = 4) along that side; pairs, `[2p]` and `[2p + 1]`.
    let cellWeight: [Float]
    /// For pixel `i` of an 8-pixel segment: its weights to cell 0 and cell 1 when the segment is
    /// a block's left half (positions 0..<8), then when it is the right half (8..<16).
    let segmentWeight: [SIMD4<Float>]

    private init() {
        var w: [Float] = []
        for p in 0..<16 {
            let d = Double(p) + 0.5 - 8
            let g = Float(exp(-d * d / 32))  // exp(-(dx² + dy²) / 2σ²) is separable
            let c = (Float(p) + 0.5) / 8 - 0.5
            let c0 = c.rounded(.down), t = c - c0
            if c0 < 0 { w += [t * g, 0] } else if c0 >= 1 { w += [0, (1 - t) * g] } else { w += [(1 - t) * g, t * g] }
        }
        cellWeight = w
        segmentWeight = (0..<8).map { i in SIMD4(w[2 * i], w[2 * i + 1], w[2 * (i + 8)], w[2 * (i + 8) + 1]) }
    }
}
