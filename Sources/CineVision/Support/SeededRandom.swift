// SeededRandom: the one seeded generator (SplitMix64) — every choice of a synthetic scene, the
// stabilizer's robust fit, the edge measures' samples — and the stateless hash that lattice
// noise and the sensor-noise table index with.
import Foundation

/// SplitMix64: tiny, fast and identical on every platform and Swift version, so a seed always
/// gives the same scene. (The standard library's `random(in:using:)` algorithms may change.)
public struct SeededRandom: Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededRandom.mix(state)
    }

    /// A uniform value in `0 ..< 1`.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform value in `lo ..< hi`.
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }

    /// A normal value with mean 0 and standard deviation 1 (Box–Muller).
    public mutating func gaussian() -> Double {
        let u = max(unit(), 0x1p-53), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// A uniform integer in `0 ..< count`.
    public mutating func index(below count: Int) -> Int { Int(next() % UInt64(count)) }

    /// The numbers `0 ..< count` in a random order (Fisher–Yates).
    public mutating func permutation(of count: Int) -> [Int] {
        var values = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) { values.swapAt(i, index(below: i + 1)) }
        return values
    }

    /// SplitMix64's finaliser: a stateless 64-bit hash with good avalanche.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of three integers, for lattice points and table offsets.
    static func hash(_ a: Int, _ b: Int, _ salt: UInt64) -> UInt64 {
        mix(
            salt &+ UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15
                ^ UInt64(bitPattern: Int64(b)) &* 0xC2B2_AE3D_27D4_EB4F)
    }

    /// `hash(a, b, salt)` as a value in `0 ..< 1`.
    static func unit(_ a: Int, _ b: Int, _ salt: UInt64) -> Double {
        Double(hash(a, b, salt) >> 11) * 0x1p-53
    }
}
