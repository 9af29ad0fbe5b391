// FocusRack: the focus puller's law — how long a rack takes for a disparity distance, and the
// curve focus follows during it (a brisk start, a long feathered landing).

/// How racks are timed and shaped (docs/focus.md).
///
/// Duration: `clamp(|Δd| / speed, minimumDuration, maximumDuration)`, Δd the disparity
/// distance in full-resolution pixels. Shape: `6p² − 8p³ + 3p⁴`, the integral of a speed
/// `∝ p(1 − p)²`: focus leaves and lands with zero speed, is fastest a third of the way in
/// (peak 16/9·|Δd| / duration) and feathers the last part onto the subject, as a focus puller
/// does — within 12 % of the way at two thirds of the rack, where a symmetric S-curve gets
/// there at 78 %.
public struct FocusRack: Sendable, Hashable, Codable {
    /// Disparity pixels per second for racks between the bounds.
    public var speed: Double
    /// The shortest rack, seconds.
    public var minimumDuration: Double
    /// The longest rack, seconds.
    public var maximumDuration: Double

    /// Creates a law; the defaults give 0.33 s (ten frames at 30 fps) up to Δd = 26 px and
    /// 0.7 s from Δd = 56 px.
    public init(speed: Double = 80, minimumDuration: Double = 0.33, maximumDuration: Double = 0.7) {
        self.speed = speed
        self.minimumDuration = minimumDuration
        self.maximumDuration = max(minimumDuration, maximumDuration)
    }

    /// The rack duration in seconds for a disparity distance (`nil` = unknown: the longest).
    public func duration(for distance: Double?) -> Double {
        guard let distance, speed > 0 else { return maximumDuration }
        return min(maximumDuration, max(minimumDuration, abs(distance) / speed))
    }

    /// The eased fraction of the way at progress `p` (clamped to 0…1).
    public static func ease(_ p: Double) -> Double {
        let x = min(1, max(0, p))
        return x * x * (6 - 8 * x + 3 * x * x)
    }
}
