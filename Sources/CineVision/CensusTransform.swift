// CensusTransform: the 9×7 census signature of every pixel — one bit per neighbour, set when the
// neighbour is darker than the centre — so that matching cost is a Hamming distance (popcount)
// that ignores brightness and contrast differences between the two cameras.

/// The 9×7 census transform (62 bits in a `UInt64`).
///
/// Bit layout (the same for every pixel, which is all a Hamming distance needs): neighbours are
/// numbered k = 0 … 61 row by row (rows −3 … 3, columns −4 … 4, centre skipped); byte j of the
/// signature holds neighbours 8j … 8j+7, the first one in the byte's highest used bit.
enum CensusTransform {
    /// Window half-width (columns −4 … 4).
    static let radiusX = 4
    /// Window half-height (rows −3 … 3).
    static let radiusY = 3
    /// Bits per signature (the window minus its centre), the largest possible cost.
    static let bitCount = 62

    /// The neighbours in bit order: (row offset, column offset).
    static let neighbours: [(dy: Int, dx: Int)] = (-3...3).flatMap { dy in
        (-4...4).compactMap { dx in dx == 0 && dy == 0 ? nil : (dy, dx) }
    }

    /// Where neighbour k's bit goes (see the layout above).
    static let bitPositions: [UInt64] = (0..<62).map { (k: Int) -> UInt64 in
        let byte: Int = k >> 3
        let used: Int = Swift.min(8, 62 - 8 * byte)
        return UInt64(8 * byte + used - 1 - (k & 7))
    }

    typealias Bytes16 = SIMD16<UInt8>
    typealias Words16 = SIMD16<UInt16>

    /// Computes signatures for `rows` of a `width` × `height` 8-bit image with row stride
    /// `width`. Neighbours outside the image are clamped to the border.
    ///
    /// Cost: 16 pixels at a time in UInt16 lanes — per neighbour one widening load, a subtract
    /// (the borrow is the "darker" bit), two shifts and an or: ≈ 5 vector ops per 16 pixels per
    /// neighbour, ≈ 20 ops per pixel; reads 63 bytes per pixel from 7 rows in L1, writes 8
    /// bytes. Border rows read clamped rows; the 4 border columns on each side read a 7 × 24
    /// byte copy with clamped columns — every pixel takes the vector path.
    static func transform(
        _ image: UnsafePointer<UInt8>, width: Int, height: Int, rows: Range<Int>,
        into out: UnsafeMutablePointer<UInt64>
    ) {
        let rx = radiusX, ry = radiusY, span = 2 * ry + 1
        neighbours.withUnsafeBufferPointer { nb in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 2 * span) { rowBase in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: span * 24) { edge in
            let edgeRows = rowBase.baseAddress! + span
            for y in rows {
                let dst = out + y * width
                guard width >= 2 * rx + 16 else {
                    for x in 0..<width { dst[x] = clampedSignature(image, width, height, x, y, nb) }
                    continue
                }
                // Rows above and below the image repeat the border row (the same clamping as
                // `clampedSignature`), so border rows take the vector path too.
                for dy in -ry...ry { rowBase[dy + ry] = image + Swift.min(height - 1, Swift.max(0, y + dy)) * width }
                var x = rx
                while x < width - rx {
                    // The last chunk overlaps the one before rather than falling back to scalar.
                    x = Swift.min(x, width - rx - 16)
                    signatures16(rows: UnsafePointer(rowBase.baseAddress!), x: x, neighbours: nb, into: dst + x)
                    x += 16
                }
                // The border columns: columns −4 … 19 (left) and width − 20 … width + 3 (right)
                // copied with clamping, then the same vector code at x = 0 and x = width − 16.
                for side in 0..<2 {
                    let at = side == 0 ? 0 : width - 16, first = at - rx
                    for r in 0..<span {
                        let row = rowBase[r], copy = edge.baseAddress! + r * 24
                        for j in 0..<24 { copy[j] = row[Swift.min(width - 1, Swift.max(0, first + j))] }
                        edgeRows[r] = UnsafePointer(copy) - first
                    }
                    // The 12 interior signatures this chunk overlaps come out the same.
                    signatures16(rows: UnsafePointer(edgeRows), x: at, neighbours: nb, into: dst + at)
                }
            }
            }
            }
        }
    }

    /// The signatures of pixels x … x + 15 of a row whose 7 neighbour rows (−3 … 3) start at
    /// `rows[0 …< 7]` (pointers that column c of each row is `rows[r] + c` of).
    @inline(__always) private static func signatures16(
        rows: UnsafePointer<UnsafePointer<UInt8>>, x: Int, neighbours nb: UnsafeBufferPointer<(dy: Int, dx: Int)>,
        into dst: UnsafeMutablePointer<UInt64>
    ) {
        let ry = radiusY
        let c = Words16(truncatingIfNeeded: UnsafeRawPointer(rows[ry] + x).loadUnaligned(as: Bytes16.self))
        var chunks = (Words16(), Words16(), Words16(), Words16())
        for pair in 0..<4 {
            // Two bytes of the signature per UInt16 lane: neighbours 16·pair … 16·pair+15.
            var hi = Words16(), lo = Words16()
            for k in (16 * pair)..<Swift.min(16 * pair + 16, 62) {
                let (dy, dx) = nb[k]
                let n = Words16(truncatingIfNeeded: UnsafeRawPointer(rows[dy + ry] + x + dx).loadUnaligned(as: Bytes16.self))
                let darker = (n &- c) &>> 15  // 1 where n < c (the subtraction borrowed)
                if k < 16 * pair + 8 { lo = (lo &<< 1) | darker } else { hi = (hi &<< 1) | darker }
            }
            let word = lo | (hi &<< 8)
            switch pair {
            case 0: chunks.0 = word
            case 1: chunks.1 = word
            case 2: chunks.2 = word
            default: chunks.3 = word
            }
        }
        for i in 0..<16 {
            dst[i] = UInt64(chunks.0[i]) | UInt64(chunks.1[i]) << 16 | UInt64(chunks.2[i]) << 32 | UInt64(chunks.3[i]) << 48
        }
    }

    /// The signature at (x, y) with border clamping, in the same bit layout (border pixels only).
    @inline(never)
    static func clampedSignature(
        _ image: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ x: Int, _ y: Int,
        _ nb: UnsafeBufferPointer<(dy: Int, dx: Int)>
    ) -> UInt64 {
        let c = image[y * width + x]
        var bits: UInt64 = 0
        bitPositions.withUnsafeBufferPointer { shift in
            for k in 0..<bitCount {
                let yy = Swift.min(height - 1, Swift.max(0, y + nb[k].dy))
                let xx = Swift.min(width - 1, Swift.max(0, x + nb[k].dx))
                bits |= UInt64(image[yy * width + xx] < c ? 1 : 0) << shift[k]
            }
        }
        return bits
    }
}
