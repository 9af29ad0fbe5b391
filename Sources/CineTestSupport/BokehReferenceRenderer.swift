// BokehReferenceRenderer: the slow, exact renderer the fast one is tested against — every
// layer of a layered scene convolved with its own disk and composited back to front.
import CineMedia
import CineVision

/// The reference for scenes of fronto-parallel layers: each layer's premultiplied linear
/// colour (highlight-boosted as in ``BokehColorSpace``) is convolved with an anti-aliased disk
/// of radius `|c|` (``LensModel``, clamped to `maxBlur × height`; kernel weight
/// `clamp(r + 0.5 − distance, 0, 1)`, normalised over the taps inside the frame), and the
/// layers are composited back to front with "over". Unlike the fast renderer it sees every
/// layer whole, including what nearer layers hide. Cost: O(r²) per pixel per layer — for tests.
public struct BokehReferenceRenderer: Sendable {
    /// The camera model.
    public var lens = LensModel()
    /// The largest blur radius as a fraction of the image height.
    public var maxBlur = 0.03
    /// Highlight boost, as in ``BokehRenderer/Settings/highlightBoost``.
    public var highlightBoost = 3.0

    /// Creates a reference renderer.
    public init() {}

    /// The scene rendered with focus at `focusDisparity` and aperture `fNumber`, as I420, or
    /// as RGBA (full colour) with `format: .rgba8`.
    public func render(layers: [BokehSceneLayer], focusDisparity: Double, fNumber: Double,
                       format: PixelFormat = .i420) -> Image {
        let linear = renderLinear(layers: layers, focusDisparity: focusDisparity, fNumber: fNumber)
        let W = layers[0].width, H = layers[0].height
        return format == .rgba8 ? Self.rgba(linear: linear, width: W, height: H) : Self.i420(linear: linear, width: W, height: H)
    }

    /// The scene rendered with focus at `focusDisparity` and aperture `fNumber`: linear RGB,
    /// row-major (highlights may exceed 1).
    public func renderLinear(layers: [BokehSceneLayer], focusDisparity: Double, fNumber: Double) -> [SIMD3<Float>] {
        precondition(!layers.isEmpty, "a scene needs at least one layer")
        let W = layers[0].width, H = layers[0].height
        let maxR = maxBlur * Double(H)
        let boost = Float(highlightBoost)
        var acc = [SIMD4<Float>](repeating: .zero, count: W * H)
        for layer in layers.sorted(by: { $0.disparity < $1.disparity }) {
            let c = lens.circleOfConfusion(disparity: layer.disparity, focusDisparity: focusDisparity, fNumber: fNumber)
            let r = min(abs(c), maxR)
            let reach = Int((r + 0.5).rounded(.up))
            let side = 2 * reach + 1
            var kernel = [Float](repeating: 0, count: side * side)
            for dy in -reach...reach {
                for dx in -reach...reach {
                    let d = Double(dx * dx + dy * dy).squareRoot()
                    kernel[(dy + reach) * side + dx + reach] = Float(min(max(r + 0.5 - d, 0), 1))
                }
            }
            let source: [SIMD4<Float>] = (0..<(W * H)).map { i in
                let col = layer.color[i]
                let gain = boost > 0 ? BokehColorSpace.highlightGain(col, boost: boost) : 1
                let a = layer.coverage[i]
                return SIMD4(col.x * gain * a, col.y * gain * a, col.z * gain * a, a)
            }
            for y in 0..<H {
                for x in 0..<W {
                    var sum = SIMD4<Float>.zero
                    var weight: Float = 0
                    for dy in max(-reach, -y)...min(reach, H - 1 - y) {
                        let row = (y + dy) * W
                        let krow = (dy + reach) * side + reach
                        for dx in max(-reach, -x)...min(reach, W - 1 - x) {
                            let k = kernel[krow + dx]
                            sum += source[row + x + dx] * k
                            weight += k
                        }
                    }
                    let v = sum / weight
                    acc[y * W + x] = v + acc[y * W + x] * (1 - v.w)
                }
            }
        }
        return acc.map { a in a.w > 1e-6 ? SIMD3(a.x, a.y, a.z) / a.w : SIMD3<Float>.zero }
    }

    /// The scene with no blur at all (what the camera sees), as I420 or RGBA.
    public static func sharpImage(layers: [BokehSceneLayer], format: PixelFormat = .i420) -> Image {
        let W = layers[0].width, H = layers[0].height
        var acc = [SIMD4<Float>](repeating: .zero, count: W * H)
        for layer in layers.sorted(by: { $0.disparity < $1.disparity }) {
            for i in 0..<(W * H) {
                let a = layer.coverage[i], c = layer.color[i]
                acc[i] = SIMD4(c.x * a, c.y * a, c.z * a, a) + acc[i] * (1 - a)
            }
        }
        let linear = acc.map { a in a.w > 1e-6 ? SIMD3(a.x, a.y, a.z) / a.w : .zero }
        return format == .rgba8 ? rgba(linear: linear, width: W, height: H) : i420(linear: linear, width: W, height: H)
    }

    /// Linear RGB (row-major) → RGBA, 8-bit gamma-encoded, opaque.
    public static func rgba(linear: [SIMD3<Float>], width W: Int, height H: Int) -> Image {
        let image = Image(width: W, height: H, format: .rgba8)
        let plane = image.plane(0)
        func byte(_ v: Float) -> UInt8 { UInt8(min(max(v * 255 + 0.5, 0), 255)) }
        BokehColorSpace.encodeTable.withUnsafeBufferPointer { t in
            for y in 0..<H {
                let row = plane.row(y, as: UInt8.self)
                for x in 0..<W {
                    let c = linear[y * W + x]
                    row[4 * x] = byte(BokehColorSpace.encode(c.x, t.baseAddress!))
                    row[4 * x + 1] = byte(BokehColorSpace.encode(c.y, t.baseAddress!))
                    row[4 * x + 2] = byte(BokehColorSpace.encode(c.z, t.baseAddress!))
                    row[4 * x + 3] = 255
                }
            }
        }
        return image
    }

    /// The scene's exact disparity: per pixel, the nearest layer covering at least half of it.
    public static func disparityMap(layers: [BokehSceneLayer]) -> DisparityMap {
        let W = layers[0].width, H = layers[0].height
        let image = Image(width: W, height: H, format: .float32)
        let plane = image.plane(0)
        let sorted = layers.sorted(by: { $0.disparity > $1.disparity })
        for y in 0..<H {
            let row = plane.row(y, as: Float.self)
            for x in 0..<W {
                let i = y * W + x
                row[x] = Float((sorted.first { $0.coverage[i] >= 0.5 } ?? sorted[sorted.count - 1]).disparity)
            }
        }
        return DisparityMap(values: image, referenceWidth: W, referenceHeight: H)
    }

    /// Linear RGB (row-major) → I420, BT.709 limited range, chroma from 2×2 gamma averages.
    public static func i420(linear: [SIMD3<Float>], width W: Int, height H: Int) -> Image {
        let image = Image(width: W, height: H, format: .i420)
        let yP = image.plane(0), uP = image.plane(1), vP = image.plane(2)
        let gammaRGB: [SIMD3<Float>] = BokehColorSpace.encodeTable.withUnsafeBufferPointer { t in
            linear.map { SIMD3(BokehColorSpace.encode($0.x, t.baseAddress!), BokehColorSpace.encode($0.y, t.baseAddress!),
                               BokehColorSpace.encode($0.z, t.baseAddress!)) }
        }
        func byte(_ v: Float) -> UInt8 { UInt8(min(max(v + 0.5, 0), 255)) }
        for y in 0..<H {
            for x in 0..<W { yP.row(y, as: UInt8.self)[x] = byte(BokehColorSpace.yuv(gammaRGB[y * W + x]).x) }
        }
        for cy in 0..<((H + 1) / 2) {
            for cx in 0..<((W + 1) / 2) {
                var sum = SIMD3<Float>.zero, n: Float = 0
                for y in (2 * cy)..<min(2 * cy + 2, H) {
                    for x in (2 * cx)..<min(2 * cx + 2, W) {
                        sum += gammaRGB[y * W + x]
                        n += 1
                    }
                }
                let yuv = BokehColorSpace.yuv(sum / n)
                uP.row(cy, as: UInt8.self)[cx] = byte(yuv.y)
                vP.row(cy, as: UInt8.self)[cx] = byte(yuv.z)
            }
        }
        return image
    }
}
