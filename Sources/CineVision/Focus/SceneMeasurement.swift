// SceneMeasurement: what the scene monitor looks at in one frame — mean luminance, sensor
// noise and disparity confidence — and how they are measured from the luma and the map.
import CineMedia

/// The light-related signals of one frame; `nil` = not measured (no image, no map).
public struct SceneMeasurement: Sendable, Hashable {
    /// Mean luma, 0…1 of full scale.
    public var luminance: Double?
    /// Standard deviation of the sensor noise in luma, 0…1 of full scale.
    public var noise: Double?
    /// Mean disparity confidence, 0…1 (invalid samples count 0; a map without a confidence
    /// plane gives the fraction of valid samples).
    public var disparityConfidence: Double?

    /// Creates a measurement.
    public init(luminance: Double? = nil, noise: Double? = nil, disparityConfidence: Double? = nil) {
        self.luminance = luminance
        self.noise = noise
        self.disparityConfidence = disparityConfidence
    }

    /// Luminance over noise (`nil` when either is unknown; large when there is no noise).
    public var signalToNoise: Double? {
        guard let l = luminance, let n = noise else { return nil }
        return l / max(n, 1e-6)
    }

    /// Measures a frame: the luma of `image` (plane 0 of gray8, I420 or NV12; other formats
    /// are not measured) and the confidence of `disparity`.
    ///
    /// Noise is Immerkær's estimator — σ = √(π/2) / 6 · mean |L|, L the 3×3 Laplacian
    /// difference `[1 −2 1; −2 4 −2; 1 −2 1]`, which cancels flat areas and gradients — on a
    /// grid of at most about 320 × 180 points. Cost: ≤ 60 k points × (9 loads, ~12 ops) for
    /// luma and noise, ≤ 64 × 36 samples for the map; no allocation.
    public static func measure(luma image: Image?, disparity: DisparityMap?) -> SceneMeasurement {
        var m = SceneMeasurement()
        if let image, image.format == .gray8 || image.format == .i420 || image.format == .nv12,
            image.width >= 3, image.height >= 3
        {
            let plane = image.plane(0)
            let step = max(1, max(image.width / 320, image.height / 180))
            var sum = 0, laplacian = 0, count = 0
            var y = 1
            while y < image.height - 1 {
                let above = plane.row(y - 1, as: UInt8.self), row = plane.row(y, as: UInt8.self)
                let below = plane.row(y + 1, as: UInt8.self)
                var x = 1
                while x < image.width - 1 {
                    let centre = Int(row[x])
                    let corners = Int(above[x - 1]) + Int(above[x + 1]) + Int(below[x - 1]) + Int(below[x + 1])
                    let edges = Int(above[x]) + Int(below[x]) + Int(row[x - 1]) + Int(row[x + 1])
                    laplacian += abs(corners - 2 * edges + 4 * centre)
                    sum += centre
                    count += 1
                    x += step
                }
                y += step
            }
            if count > 0 {
                m.luminance = Double(sum) / Double(count) / 255
                m.noise = (Double.pi / 2).squareRoot() / 6 * Double(laplacian) / Double(count) / 255
            }
        }
        if let disparity {
            let values = disparity.values.plane(0)
            let w = disparity.values.width, h = disparity.values.height
            let confidence = disparity.confidence.flatMap { c in
                c.format == .gray8 && c.width == w && c.height == h ? c.plane(0) : nil
            }
            let sx = max(1, w / 64), sy = max(1, h / 36)
            var total = 0.0, count = 0
            for y in Swift.stride(from: 0, to: h, by: sy) {
                let row = values.row(y, as: Float.self)
                let conf = confidence.map { $0.row(y, as: UInt8.self) }
                for x in Swift.stride(from: 0, to: w, by: sx) {
                    if row[x].isFinite { total += conf.map { Double($0[x]) / 255 } ?? 1 }
                    count += 1
                }
            }
            if count > 0 { m.disparityConfidence = total / Double(count) }
        }
        return m
    }
}
