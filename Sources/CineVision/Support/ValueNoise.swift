// ValueNoise: smooth, seeded, optionally periodic lattice noise for painting texture tiles.

/// Value noise: random values on an integer lattice, blended with a smoothstep.
///
/// Used while building texture tiles and test clips (never per rendered pixel). With a period the noise
/// repeats exactly, so a tile built from it wraps without a seam.
public struct ValueNoise: Sendable {
    /// Distinguishes independent noise fields.
    public let salt: UInt64

    /// A noise field; equal salts give equal fields.
    public init(salt: UInt64) { self.salt = salt }

    /// Noise in `0 ... 1` at texel `(x, y)`, lattice spacing `cell` texels, repeating every
    /// `periodX` × `periodY` texels (which must be multiples of `cell`); 0 = no repetition.
    public func sample(_ x: Double, _ y: Double, cell: Double, periodX: Int = 0, periodY: Int = 0) -> Double {
        let fx = x / cell, fy = y / cell
        let x0 = fx.rounded(.down), y0 = fy.rounded(.down)
        let tx = ValueNoise.smooth(fx - x0), ty = ValueNoise.smooth(fy - y0)
        let cellsX = periodX > 0 ? max(1, Int((Double(periodX) / cell).rounded())) : 0
        let cellsY = periodY > 0 ? max(1, Int((Double(periodY) / cell).rounded())) : 0
        func wrap(_ i: Int, _ n: Int) -> Int { n > 0 ? ((i % n) + n) % n : i }
        let ix0 = wrap(Int(x0), cellsX), ix1 = wrap(Int(x0) + 1, cellsX)
        let iy0 = wrap(Int(y0), cellsY), iy1 = wrap(Int(y0) + 1, cellsY)
        let a = SeededRandom.unit(ix0, iy0, salt), b = SeededRandom.unit(ix1, iy0, salt)
        let c = SeededRandom.unit(ix0, iy1, salt), d = SeededRandom.unit(ix1, iy1, salt)
        let top = a + (b - a) * tx, bottom = c + (d - c) * tx
        return top + (bottom - top) * ty
    }

    /// Fractal sum of `octaves` layers, the first with spacing `cell`, each next one half as
    /// coarse and half as strong; in `0 ... 1`, repeating like ``sample(_:_:cell:periodX:periodY:)``.
    public func fractal(_ x: Double, _ y: Double, cell: Double, octaves: Int, periodX: Int = 0, periodY: Int = 0) -> Double {
        var sum = 0.0, weight = 1.0, total = 0.0, size = cell
        for octave in 0..<octaves {
            let layer = ValueNoise(salt: salt &+ UInt64(octave) &* 0x51_7CC1)
            sum += weight * layer.sample(x, y, cell: size, periodX: periodX, periodY: periodY)
            total += weight
            weight *= 0.5
            size = max(1, size / 2)
        }
        return sum / total
    }

    /// Smoothstep on `0 ... 1`.
    static func smooth(_ t: Double) -> Double { t * t * (3 - 2 * t) }
}
