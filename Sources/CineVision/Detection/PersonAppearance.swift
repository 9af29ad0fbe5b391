// PersonAppearance: what a person looks like from afar — the colour and the grain of the top
// and of the legs — so a tracker can tell two walkers apart where boxes alone cannot (one lost
// behind a pole while another walks in beside the place it was lost, two crossing).
import CineMedia

/// The look of a person's box: the mean luma, mean chroma and luma spread of two bands, the top
/// (shoulders to waist) and the legs, each over the box's middle half across (so the background
/// beside a narrow figure weighs little).
///
/// A detector's box is loose by a tenth of a person's height and more, so the bands are wide
/// and their means robust to that; chroma weighs more than luma (light changes luma first).
/// Measured on I420 or NV12 frames; on gray frames the chroma is neutral and only luma tells.
public struct PersonAppearance: Sendable, Hashable {
    /// Per band (top, legs): mean luma, mean U, mean V, luma standard deviation, in levels.
    public var bands: [SIMD4<Float>]

    /// Creates an appearance from its bands (top, legs).
    public init(bands: [SIMD4<Float>]) {
        self.bands = bands
    }

    /// The top's and the legs' share of a person's box, from the top.
    static let bandSpans: [(from: Double, to: Double)] = [(0.2, 0.5), (0.58, 0.88)]
    /// Grid cells per band (across × down).
    static let cells = (cols: 4, rows: 6)

    /// Measures the person inside `bounds` of `image`; `nil` for a box under 8 pixels tall.
    public static func measure(in image: Image, bounds: NormalizedRect) -> PersonAppearance? {
        let W = Double(image.width), H = Double(image.height)
        let w = bounds.width * W * 0.5, x = (bounds.x + bounds.width * 0.25) * W
        guard bounds.height * H >= 8, w >= 1 else { return nil }
        var bands: [SIMD4<Float>] = []
        for span in bandSpans {
            let y = (bounds.y + bounds.height * span.from) * H, h = bounds.height * (span.to - span.from) * H
            let luma = AppearanceTracker.sample(image, x: x, y: y, w: w, h: h, cols: cells.cols, rows: cells.rows)
            let chroma = AppearanceTracker.chromaGrid(image, x: x, y: y, w: w, h: h, cols: cells.cols, rows: cells.rows)
            let n = Float(luma.count)
            let mean = luma.reduce(0, +) / n
            let spread = (luma.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n).squareRoot()
            let u = Float(chroma.u.reduce(0, +)) / n, v = Float(chroma.v.reduce(0, +)) / n
            bands.append(SIMD4(mean, u, v, spread))
        }
        return PersonAppearance(bands: bands)
    }

    /// How much a level of luma (or of its spread) counts against a level of chroma: light,
    /// shade and a box a little off the person change luma first (on a real clip, the same
    /// walker's top band varies by 35 levels of luma in one match of ten, and by 5 of chroma).
    static let lumaWeight: Float = 0.25

    /// How different two looks are, in levels: per band, the chroma difference (U and V) plus
    /// a quarter of the luma and spread differences (``lumaWeight``); the larger of the two bands.
    public func distance(to other: PersonAppearance) -> Double {
        var worst: Float = 0
        for (a, b) in zip(bands, other.bands) {
            let d: SIMD4<Float> = a - b
            let chroma = abs(d[1]) + abs(d[2]), luma = abs(d[0]) + abs(d[3])
            worst = max(worst, chroma + Self.lumaWeight * luma)
        }
        return Double(worst)
    }

    /// This look moved towards `other` by `rate` (0…1): a person's look learnt over a walk.
    public func blended(towards other: PersonAppearance, rate: Float) -> PersonAppearance {
        PersonAppearance(bands: zip(bands, other.bands).map { $0 + rate * ($1 - $0) })
    }
}
