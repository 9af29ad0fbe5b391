// MatteSmoother: steadies a person matte over time by agreement — where this frame's matte agrees
// with the last one (a still subject, sensor noise), the two are blended; where it disagrees (an
// edge that moved), the new matte is taken as it is, so a moving edge does not lag.
import CineMedia

/// Blends each new matte with the previous output, per pixel, by how well they agree.
///
/// The weight of the previous matte is `strength · max(0, 1 − |new − previous| / tolerance)`:
/// a change within the model's noise (a few levels) is mostly smoothed away, a change of
/// `tolerance` levels or more (a person moving) passes at once.
///
/// ```swift
/// var smoother = MatteSmoother(strength: 0.8)
/// smoother.smooth(matte)          // in place, gray8
/// ```
public struct MatteSmoother: Sendable {
    /// Weight of the previous matte where the two agree exactly (0 = no smoothing, < 1).
    public var strength: Double
    /// The change (in 8-bit levels) from which the new matte is taken unblended.
    public var tolerance: Double
    private var previous: [UInt8] = []
    private var size = (width: 0, height: 0)

    /// Creates a smoother; `strength` in 0..<1, `tolerance` > 0 levels.
    public init(strength: Double, tolerance: Double = 64) {
        precondition(strength >= 0 && strength < 1 && tolerance > 0)
        self.strength = strength
        self.tolerance = tolerance
    }

    /// Replaces `matte` (gray8) by its blend with the previous output. A matte of another size
    /// starts over. Cost: one pass, a few operations a pixel (≈ 37k pixels at 256×144).
    public mutating func smooth(_ matte: Image) {
        precondition(matte.format == .gray8, "a matte is gray8")
        let w = matte.width, h = matte.height
        defer { size = (w, h) }
        guard strength > 0, size == (w, h), previous.count == w * h else {
            previous = [UInt8](repeating: 0, count: w * h)
            copy(matte, w, h)
            return
        }
        let k0 = Float(strength), inverseTolerance = Float(1 / tolerance)
        previous.withUnsafeMutableBufferPointer { prev in
            for y in 0..<h {
                let row = matte.plane(0).row(y, as: UInt8.self)
                let p = prev.baseAddress! + y * w
                for x in 0..<w {
                    let a = Float(row[x]), b = Float(p[x])
                    let k = k0 * max(0, 1 - abs(a - b) * inverseTolerance)
                    let v = UInt8(a + (b - a) * k + 0.5)
                    row[x] = v
                    p[x] = v
                }
            }
        }
    }

    private mutating func copy(_ matte: Image, _ w: Int, _ h: Int) {
        previous.withUnsafeMutableBufferPointer { prev in
            for y in 0..<h { (prev.baseAddress! + y * w).update(from: matte.plane(0).row(y, as: UInt8.self), count: w) }
        }
    }
}
