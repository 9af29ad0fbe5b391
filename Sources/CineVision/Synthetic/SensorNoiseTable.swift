// SensorNoiseTable: precomputed, deterministic sensor noise — one table per scene, read at a
// per-row offset hashed from frame, view and row, so no random numbers are drawn per pixel.

/// Zero-mean, roughly Gaussian luma noise in 8-bit levels, precomputed once.
///
/// A row of a frame reads `width` consecutive entries starting at an offset hashed from
/// (frame, view, row): the pattern changes every frame and differs between the two sensors,
/// yet the same frame always gets the same noise.
struct SensorNoiseTable: Sendable {
    /// The noise values; empty when the noise is off.
    let values: [Int8]
    private let rowSpan: Int
    private let salt: UInt64

    /// A table with `standardDeviation` levels of noise for rows of `width` pixels.
    init(standardDeviation: Double, width: Int, seed: UInt64) {
        salt = seed ^ 0x4015_E
        guard standardDeviation > 0 else {
            values = []
            rowSpan = 0
            return
        }
        var count = 1 << 16
        while count < width * 8 { count <<= 1 }
        var random = SeededRandom(seed: salt)
        // Irwin–Hall: the sum of four uniforms minus 2 has mean 0 and standard deviation 1/√3.
        let scale = standardDeviation * 3.0.squareRoot()
        values = (0..<count).map { _ in
            let g = random.unit() + random.unit() + random.unit() + random.unit() - 2
            return Int8(min(127, max(-127, (g * scale).rounded())))
        }
        rowSpan = count - width
    }

    /// Whether there is no noise to add.
    var isSilent: Bool { values.isEmpty }

    /// Where row `row` of `view` (0 = left, 1 = right) of frame `frame` starts reading.
    func rowOffset(frame: Int, view: Int, row: Int) -> Int {
        Int(SeededRandom.hash(frame &* 2 &+ view, row, salt) % UInt64(rowSpan + 1))
    }
}
