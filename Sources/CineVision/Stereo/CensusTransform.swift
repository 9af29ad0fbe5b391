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

    /// 32 pixels, one per byte lane.
    typealias Bytes32 = SIMD32<UInt8>
    /// One signature byte of 32 pixels; `Int8` lanes because that is what a comparison mask of
    /// `Bytes32` holds (−1 where true, 0 where false).
    typealias Plane32 = SIMD32<Int8>

    /// Pixels per vector chunk.
    private static let chunk = 32

    /// Computes signatures for `rows` of a `width` × `height` 8-bit image with row stride
    /// `width`. Neighbours outside the image are clamped to the border.
    ///
    /// Cost: 32 pixels at a time in byte lanes (see `signatures32`) — per neighbour one unsigned
    /// compare of 32 bytes into a mask register (the load folded in) and ≈ 1.5 instructions to
    /// merge its bit into one of 8 byte planes under that mask; then 8 two-source byte permutes
    /// and 4 blends transpose the planes into 32 signatures. ≈ 200 instructions per 32 pixels,
    /// ≈ 6 per pixel (≈ 0.75 ns per pixel on the reference EPYC, single-threaded); reads 63 bytes
    /// per pixel from 7 rows in L1, writes 8. Border rows read clamped rows; the 32 pixels at
    /// each end of a row read a 7 × 40 byte copy with clamped columns, so every pixel takes the
    /// vector path. Images narrower than 40 pixels use `clampedSignature`.
    static func transform(
        _ image: UnsafePointer<UInt8>, width: Int, height: Int, rows: Range<Int>,
        into out: UnsafeMutablePointer<UInt64>
    ) {
        let rx = radiusX, ry = radiusY, span = 2 * ry + 1, chunk = chunk, copyWidth = chunk + 2 * rx
        guard width >= copyWidth else {
            neighbours.withUnsafeBufferPointer { nb in
                for y in rows {
                    for x in 0..<width { out[y * width + x] = clampedSignature(image, width, height, x, y, nb) }
                }
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 2 * span) { rowBase in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: span * copyWidth) { edge in
            let rowPointers = UnsafeMutablePointer(rowBase.baseAddress!), edgeRows = rowPointers + span
            let copies = edge.baseAddress!, copied = copyWidth - rx  // columns copied per row and side
            for y in rows {
                let dst = out + y * width
                // Rows above and below the image repeat the border row (the same clamping as
                // `clampedSignature`), so border rows take the vector path too.
                for dy in -ry...ry { rowPointers[dy + ry] = image + Swift.min(height - 1, Swift.max(0, y + dy)) * width }
                // Pixels 32 … width − 33 (none when the border chunks meet), read in place.
                if width > 2 * chunk {
                    let end = width - rx
                    signatures(rows: rowPointers, from: Swift.min(chunk, end - chunk), to: end, into: dst)
                }
                // Pixels 0 … 31: columns −4 … 35 copied, the border pixel repeated 4 times.
                for r in 0..<span {
                    let row = rowPointers[r], copy = copies + r * copyWidth
                    copy.initialize(repeating: row[0], count: rx)
                    (copy + rx).initialize(from: row, count: copied)
                    edgeRows[r] = UnsafePointer(copy) + rx
                }
                signatures(rows: edgeRows, from: 0, to: chunk, into: dst)
                // Pixels width − 32 … width − 1: columns width − 36 … width + 3 likewise.
                for r in 0..<span {
                    let row = rowPointers[r], copy = copies + r * copyWidth
                    copy.initialize(from: row + width - copied, count: copied)
                    (copy + copied).initialize(repeating: row[width - 1], count: rx)
                    edgeRows[r] = UnsafePointer(copy) - (width - copied)
                }
                signatures(rows: edgeRows, from: width - chunk, to: width, into: dst)
            }
        }
        }
    }

    /// The signatures of pixels `start ..< end` (at least 32) of a row whose 7 neighbour rows
    /// (−3 … 3) start at `rows[0 …< 7]` (pointers that column c of each row is `rows[r] + c`
    /// of), 32 at a time; the last chunk overlaps the one before rather than falling back to
    /// scalar.
    ///
    /// Not inlined, so that the chunk code is optimised on its own whatever the caller: inlined
    /// into a large function, the compiler may outline the transpose's closure and leave it a
    /// byte-by-byte loop (measured 15× slower).
    @inline(never) private static func signatures(
        rows: UnsafePointer<UnsafePointer<UInt8>>, from start: Int, to end: Int,
        into dst: UnsafeMutablePointer<UInt64>
    ) {
        var x = start
        repeat {
            x = Swift.min(x, end - chunk)
            signatures32(rows: rows, x: x, into: dst + x)
            x += chunk
        } while x < end
    }

    /// The signatures of pixels x … x + 31 (see `signatures`).
    ///
    /// Byte plane j (neighbours 8j …) is built by `plane`; the planes are then stored
    /// transposed, byte j of pixel i ← lane i of plane j, which the compiler turns into
    /// two-source byte permutes of whole registers (the planes never go through memory).
    @inline(__always) private static func signatures32(
        rows: UnsafePointer<UnsafePointer<UInt8>>, x: Int, into dst: UnsafeMutablePointer<UInt64>
    ) {
        let c = UnsafeRawPointer(rows[radiusY] + x).loadUnaligned(as: Bytes32.self)
        var planes = (
            plane(0, rows: rows, x: x, centre: c), plane(1, rows: rows, x: x, centre: c),
            plane(2, rows: rows, x: x, centre: c), plane(3, rows: rows, x: x, centre: c),
            plane(4, rows: rows, x: x, centre: c), plane(5, rows: rows, x: x, centre: c),
            plane(6, rows: rows, x: x, centre: c), plane(7, rows: rows, x: x, centre: c))
        withUnsafeBytes(of: &planes) { p in
            let signatures = UnsafeMutableRawPointer(dst)
            for i in 0..<chunk {
                for j in 0..<8 {
                    #if _endian(little)
                    let offset = 8 * i + j  // byte j of a UInt64
                    #else
                    let offset = 8 * i + 7 - j
                    #endif
                    signatures.storeBytes(of: p[chunk * j + i], toByteOffset: offset, as: UInt8.self)
                }
            }
        }
    }

    /// Byte j of the signatures of pixels x … x + 31 (see `signatures32`): neighbours
    /// k = 8j … 8j + 7 (8j … 61 for j = 7), each adding its bit (the byte's highest used bit
    /// for the first) in the lanes where it is darker than the centre `c`.
    ///
    /// `j` is a constant at every call, so the loop unrolls into fixed load offsets and bits.
    @inline(__always) private static func plane(
        _ j: Int, rows: UnsafePointer<UnsafePointer<UInt8>>, x: Int, centre c: Bytes32
    ) -> Plane32 {
        let used = Swift.min(8, bitCount - 8 * j), windowWidth = 2 * radiusX + 1
        var acc = Plane32()
        for b in 0..<used {
            // Neighbour k's place in the window, row by row, skipping the centre (place 31).
            let k = 8 * j + b, place = k < bitCount / 2 ? k : k + 1
            let n = UnsafeRawPointer(rows[place / windowWidth] + x + place % windowWidth - radiusX)
                .loadUnaligned(as: Bytes32.self)
            // The mask is −1 where darker: subtracting mask × bit adds the bit there.
            let bit = Plane32(repeating: Int8(truncatingIfNeeded: 1 << (used - 1 - b)))
            acc = acc &- (n .< c)._storage &* bit
        }
        return acc
    }

    /// The signature at (x, y) with border clamping, in the same bit layout (images narrower
    /// than 40 pixels; also the definition the vector path is tested against).
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
