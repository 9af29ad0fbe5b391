// FocusRack: the focus puller's law — how long a rack takes for a disparity distance, and the
// S-curve focus follows during it.

/// How racks are timed and shaped (docs/focus.md).
///
/// Duration: `clamp(|Δd| / speed, minimumDuration, maximumDuration)`, Δd the disparity
/// distance in full-resolution pixels. Shape: smoothstep `3p² − 2p³`, so focus leaves and lands
/// with zero speed; its peak speed is 1.5·|Δd| / duration.
public struct FocusRack: Sendable, Hashable, Codable {
    /// Disparity pixels per second for racks between the bounds.
    public var speed: Double
    /// The shortest rack, seconds.
    public var minimumDuration: Double
    /// The longest rack, seconds.
    public var maximumDuration: Double

    /// Creates a law; the defaults give 0.4 s up to Δd = 24 px and 0.8 s from Δd = 48 px.
    public init(speed: Double = 60, minimumDuration: Double = 0.4, maximumDuration: Double = 0.8) {
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
        return x * x * (3 - 2 * x)
    }
}
