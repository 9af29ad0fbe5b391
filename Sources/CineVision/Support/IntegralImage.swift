// IntegralImage: summed-area tables of an 8-bit image — sum, sum of squares and the 45° tilted
// sum — in OpenCV's (W+1)×(H+1) layout and 32-bit wrap-around arithmetic.

/// Summed-area tables of one 8-bit image, laid out like OpenCV's `integral(img, sum, sqsum, tilted)`:
/// `(width+1) × (height+1)` 32-bit entries, first row and column zero.
///
/// Sums wrap modulo 2³² exactly as OpenCV's `CV_32S` tables do; differences over any window
/// smaller than 2³² are exact. The tilted table follows OpenCV's definition
/// `tilted(X,Y) = Σ_{y<Y, |x−X+1| ≤ Y−y−1} image(x,y)`.
public struct IntegralImage: @unchecked Sendable {
    /// Image width (the tables are one wider).
    public let width: Int
    /// Image height (the tables are one taller).
    public let height: Int
    /// Entries per row: `width + 1`.
    public let stride: Int
    /// Σ image over `[0,X) × [0,Y)`.
    public let sum: UnsafeMutableBufferPointer<Int32>
    /// Σ image² (modulo 2³²), or empty when not requested.
    public let squaredSum: UnsafeMutableBufferPointer<UInt32>
    /// The rotated table, or empty when not requested. It directly follows ``sum`` in memory,
    /// ``tiltedOffset`` entries after it, so one pointer reaches both.
    public let tiltedSum: UnsafeMutableBufferPointer<Int32>
    /// Entries from the start of ``sum`` to the start of ``tiltedSum``.
    public var tiltedOffset: Int { stride * (height + 1) }
    private let storage: Storage

    /// Readable entries after the last table (vector loads that run past the last window).
    static let padding = 32

    /// Owns the three tables.
    private final class Storage: @unchecked Sendable {
        let sum: UnsafeMutableBufferPointer<Int32>
        let sq: UnsafeMutableBufferPointer<UInt32>
        let tilted: UnsafeMutableBufferPointer<Int32>
        init(count: Int, squares: Bool, tilted t: Bool) {
            // 32 spare entries at the end: vector window evaluation reads up to 16 past the last
            // window's corner (CascadeWindowEvaluator.firstStage8).
            let both = UnsafeMutableBufferPointer<Int32>.allocate(capacity: (t ? 2 * count : count) + IntegralImage.padding)
            (both.baseAddress! + (t ? 2 * count : count)).initialize(repeating: 0, count: IntegralImage.padding)
            sum = UnsafeMutableBufferPointer(rebasing: both[0..<count])
            tilted = UnsafeMutableBufferPointer(rebasing: both[count..<(t ? 2 * count : count)])
            sq = .allocate(capacity: squares ? count : 0)
        }
        deinit {
            sum.baseAddress!.deallocate()
            sq.deallocate()
        }
    }

    /// Computes the tables of an 8-bit image given by its first row and stride.
    /// Cost: one pass, ≈ 4 ops per pixel for sum + squares; the tilted table adds a pass over
    /// `(height) × (width + 2·height)` entries (its recurrence needs margins).
    public init(pixels: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int,
                squares: Bool = true, tilted: Bool = false) {
        precondition(width > 0 && height > 0, "integral image of an empty image")
        self.width = width
        self.height = height
        stride = width + 1
        let count = (width + 1) * (height + 1)
        storage = Storage(count: count, squares: squares, tilted: tilted)
        sum = storage.sum
        squaredSum = storage.sq
        tiltedSum = storage.tilted
        let s = sum.baseAddress!, st = stride
        // Sum and squares: row prefix added to the row above. ≈ 1 byte read, 8–16 bytes written per pixel.
        s.initialize(repeating: 0, count: st)
        if squares { squaredSum.baseAddress!.initialize(repeating: 0, count: st) }
        for y in 0..<height {
            let src = pixels + y * rowStride
            let out = s + (y + 1) * st, above = s + y * st
            out[0] = 0
            var acc: Int32 = 0
            if squares {
                let q = squaredSum.baseAddress! + (y + 1) * st, qa = squaredSum.baseAddress! + y * st
                q[0] = 0
                var accq: UInt32 = 0
                for x in 0..<width {
                    let v = Int32(src[x])
                    acc &+= v
                    accq &+= UInt32(v * v)
                    out[x + 1] = above[x + 1] &+ acc
                    q[x + 1] = qa[x + 1] &+ accq
                }
            } else {
                for x in 0..<width {
                    acc &+= Int32(src[x])
                    out[x + 1] = above[x + 1] &+ acc
                }
            }
        }
        if tilted { Self.computeTilted(pixels: pixels, width: width, height: height, rowStride: rowStride, into: tiltedSum) }
    }

    /// T(X,Y) = I(X−1,Y−1) + T(X−1,Y−1) + T(X+1,Y−1) − T(X,Y−2) + I(X−1,Y−2), over columns padded by
    /// `height + 1` on both sides (the triangles reach that far), with three rolling rows.
    /// Cost: ≈ 6 ops per entry over height × (width + 2·height + 3) entries.
    private static func computeTilted(pixels: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int,
                                      into out: UnsafeMutableBufferPointer<Int32>) {
        let pad = height + 1
        let pw = width + 1 + 2 * pad
        let rows = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * pw)
        defer { rows.deallocate() }
        rows.initialize(repeating: 0, count: 3 * pw)
        let st = width + 1
        let o = out.baseAddress!
        o.initialize(repeating: 0, count: st)  // row 0
        var prev2 = rows, prev1 = rows + pw, cur = rows + 2 * pw  // rows Y−2, Y−1, Y
        for Y in 1...height {
            let srcA = pixels + (Y - 1) * rowStride                    // image row Y−1
            let srcB: UnsafePointer<UInt8>? = Y >= 2 ? pixels + (Y - 2) * rowStride : nil  // row Y−2
            // Only columns that can be non-zero and are needed later: X in −(height−Y)−1 … width+(height−Y)+1.
            let reach = height - Y + 1
            let lo = max(1, pad - reach), hi = min(pw - 2, pad + width + reach)
            cur[0] = 0
            cur[pw - 1] = 0
            if lo > 1 { (cur + 1).update(repeating: 0, count: lo - 1) }
            if hi < pw - 2 { (cur + hi + 1).update(repeating: 0, count: pw - 2 - hi) }
            for c in lo...hi {
                let X = c - pad, ix = X - 1
                var v = prev1[c - 1] &+ prev1[c + 1] &- prev2[c]
                if ix >= 0 && ix < width {
                    v &+= Int32(srcA[ix])
                    if let srcB { v &+= Int32(srcB[ix]) }
                }
                cur[c] = v
            }
            (o + Y * st).update(from: cur + pad, count: st)
            let t = prev2
            prev2 = prev1
            prev1 = cur
            cur = t
        }
    }
}
