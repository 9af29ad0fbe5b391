// DisparityMap: how far each reference pixel shifts between the views (larger = nearer).

/// Disparity in pixels of the reference view's full resolution, stored at its own (usually
/// lower) resolution, with an optional confidence plane.
public struct DisparityMap: Sendable {
    /// Disparity per sample as `float32`; non-finite values mark invalid samples.
    public var values: Image
    /// Confidence per sample as `gray8` (0 = none, 255 = certain), when the producer has one.
    public var confidence: Image?
    /// Width of the reference view the disparities are measured in.
    public var referenceWidth: Int
    /// Height of the reference view.
    public var referenceHeight: Int

    /// Creates a map; `values` must be `float32`.
    public init(values: Image, confidence: Image? = nil, referenceWidth: Int, referenceHeight: Int) {
        precondition(values.format == .float32, "disparity values are float32")
        self.values = values
        self.confidence = confidence
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
    }

    /// The largest finite sample (the nearest point), or nil for a map without one. One pass.
    public var nearest: Float? {
        var best: Float?
        for y in 0..<values.height {
            let row = values.plane(0).row(y, as: Float.self)
            for x in 0..<values.width where row[x].isFinite { best = max(best ?? row[x], row[x]) }
        }
        return best
    }

    /// The disparity at a normalised point (0…1, top-left origin, clamped to the map), nearest
    /// sample; `nil` if invalid (infinite or NaN).
    public func disparity(atNormalized x: Double, _ y: Double) -> Float? {
        let px = min(values.width - 1, max(0, Int(x * Double(values.width))))
        let py = min(values.height - 1, max(0, Int(y * Double(values.height))))
        let v = values.plane(0).row(py, as: Float.self)[px]
        return v.isFinite ? v : nil
    }
}
