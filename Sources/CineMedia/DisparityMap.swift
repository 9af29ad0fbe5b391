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

    /// The disparity a tap at `point` means: the median of the valid (finite, positive) samples
    /// on a 5 × 5 grid spaced 0.5 % of the frame around it (clamped to the frame), so one
    /// unmatched or speckled sample does not decide. `nil` when none is valid. The one lookup
    /// for a point: live focus commands, the editor's taps, `render --focus-at`.
    /// Cost: 25 samples + a sort of ≤ 25, on the stack (the focus node asks every frame).
    public func robustDisparity(at point: NormalizedPoint) -> Double? {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 25) { samples -> Double? in
            var count = 0
            for j in -2...2 {
                for i in -2...2 {
                    let sx = min(1, max(0, point.x + Double(i) * 0.005)), sy = min(1, max(0, point.y + Double(j) * 0.005))
                    if let v = disparity(atNormalized: sx, sy), v > 0 {
                        samples[count] = v
                        count += 1
                    }
                }
            }
            guard count > 0 else { return nil }
            samples[0..<count].sort()
            return Double(samples[count / 2])
        }
    }

    /// The disparity of an object in `box`: the median over the box's central part (shrunk by
    /// `shrink`), sampled on at most 24 × 24 points. With a `previous` value, the median of the
    /// samples within 20 % of it is taken when they are at least a quarter of the box, so an
    /// object entering the box does not pull the value to its own depth. `nil` when no sample
    /// is valid. Cost: ≤ 576 samples + a sort.
    public func robustDisparity(in box: NormalizedRect, previous: Double?, shrink: Double = 0.5) -> Double? {
        let vw = values.width, vh = values.height
        let cx = box.x + box.width / 2, cy = box.y + box.height / 2
        let hw = box.width * shrink / 2, hh = box.height * shrink / 2
        let x0 = max(0, Int((cx - hw) * Double(vw))), x1 = min(vw - 1, Int((cx + hw) * Double(vw)))
        let y0 = max(0, Int((cy - hh) * Double(vh))), y1 = min(vh - 1, Int((cy + hh) * Double(vh)))
        guard x1 >= x0, y1 >= y0 else { return nil }
        let sx = max(1, (x1 - x0 + 1) / 24), sy = max(1, (y1 - y0 + 1) / 24)
        var samples: [Float] = []
        samples.reserveCapacity(576)
        let plane = values.plane(0)
        for y in Swift.stride(from: y0, through: y1, by: sy) {
            let row = plane.row(y, as: Float.self)
            for x in Swift.stride(from: x0, through: x1, by: sx) where row[x].isFinite { samples.append(row[x]) }
        }
        guard !samples.isEmpty else { return nil }
        func median(_ v: [Float]) -> Float { v.sorted()[v.count / 2] }
        if let p = previous {
            let tolerance = Double(Float(max(1, 0.2 * p)))  // as the tracker has always compared
            let near = samples.filter { abs(Double($0) - p) <= tolerance }
            if near.count * 4 >= samples.count { return Double(median(near)) }
        }
        return Double(median(samples))
    }
}
