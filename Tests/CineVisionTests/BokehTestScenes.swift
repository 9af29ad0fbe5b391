// BokehTestScenes: small layered scenes (fronto-parallel layers, complete behind occluders)
// for the bokeh tests, and the image metrics they assert on (PSNR, halo-band error).
import CineMedia
import CineVision
import Foundation

/// Layered test scenes, 192×108 (debug builds are slow on pixel loops).
enum BokehTestScenes {
    static let width = 192, height = 108

    /// A smooth, deterministic texture: low-contrast stripes and blobs around `base`.
    static func texture(_ base: SIMD3<Float>, _ x: Int, _ y: Int, period: Float, contrast: Float) -> SIMD3<Float> {
        let fx = Float(x), fy = Float(y)
        let a = sin(fx / period) * cos(fy / (period * 1.3)), b = sin((fx + fy) / (period * 0.7))
        return base * (1 + contrast * (0.6 * a + 0.4 * b))
    }

    /// A layer covering everything, textured around `base`.
    static func wall(_ base: SIMD3<Float>, disparity: Double, period: Float = 6, contrast: Float = 0.35) -> BokehSceneLayer {
        var color = [SIMD3<Float>](), cover = [Float]()
        for y in 0..<height {
            for x in 0..<width {
                color.append(texture(base, x, y, period: period, contrast: contrast))
                cover.append(1)
            }
        }
        return BokehSceneLayer(width: width, height: height, color: color, coverage: cover, disparity: disparity)
    }

    /// An anti-aliased ellipse (a "head") or, with `bar`, a vertical bar, textured around `base`.
    static func shape(_ base: SIMD3<Float>, disparity: Double, cx: Double, cy: Double, rx: Double, ry: Double,
                      period: Float = 3, contrast: Float = 0.4) -> BokehSceneLayer {
        var color = [SIMD3<Float>](), cover = [Float]()
        for y in 0..<height {
            for x in 0..<width {
                color.append(texture(base, x + 17, y + 5, period: period, contrast: contrast))
                let dx = (Double(x) + 0.5 - cx) / rx, dy = (Double(y) + 0.5 - cy) / ry
                let edge = (1 - (dx * dx + dy * dy).squareRoot()) * min(rx, ry)  // ≈ pixels inside the edge
                cover.append(Float(min(max(edge + 0.5, 0), 1)))
            }
        }
        return BokehSceneLayer(width: width, height: height, color: color, coverage: cover, disparity: disparity)
    }

    /// A textured wall far behind an in-focus subject (disparities 10 and 40).
    static var portrait: [BokehSceneLayer] {
        [wall(SIMD3(0.20, 0.28, 0.45), disparity: 10),
         shape(SIMD3(0.55, 0.35, 0.25), disparity: 40, cx: 96, cy: 54, rx: 26, ry: 34)]
    }

    /// A blurred foreground post in front of an in-focus subject in front of a wall.
    static var foreground: [BokehSceneLayer] {
        [wall(SIMD3(0.30, 0.35, 0.25), disparity: 8),
         shape(SIMD3(0.50, 0.30, 0.30), disparity: 30, cx: 110, cy: 54, rx: 28, ry: 36),
         shape(SIMD3(0.15, 0.12, 0.10), disparity: 60, cx: 70, cy: 54, rx: 9, ry: 200, contrast: 0.2)]
    }

    /// Three depths plus small bright highlights on the far wall.
    static var highlights: [BokehSceneLayer] {
        var far = wall(SIMD3(0.10, 0.10, 0.16), disparity: 6, contrast: 0.2)
        for (hx, hy) in [(30, 20), (160, 30), (150, 90), (40, 85)] {
            for y in (hy - 1)...(hy + 1) {
                for x in (hx - 1)...(hx + 1) { far.color[y * width + x] = SIMD3(1, 0.95, 0.8) }
            }
        }
        return [far,
                shape(SIMD3(0.35, 0.45, 0.30), disparity: 20, cx: 150, cy: 60, rx: 20, ry: 25),
                shape(SIMD3(0.60, 0.45, 0.35), disparity: 36, cx: 80, cy: 56, rx: 24, ry: 30)]
    }
}

/// Image comparisons.
enum BokehMetrics {
    /// PSNR (dB) of plane `p` of two same-sized images.
    static func psnr(_ a: Image, _ b: Image, plane p: Int = 0) -> Double {
        let pa = a.plane(p), pb = b.plane(p)
        var sum = 0.0
        for y in 0..<pa.height {
            let ra = pa.row(y, as: UInt8.self), rb = pb.row(y, as: UInt8.self)
            for x in 0..<pa.width {
                let d = Double(ra[x]) - Double(rb[x])
                sum += d * d
            }
        }
        let mse = sum / Double(pa.width * pa.height)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// Mean and maximum |a − b| of luma over the pixels where `band` is true.
    static func lumaError(_ a: Image, _ b: Image, where band: (Int, Int) -> Bool) -> (mean: Double, max: Int) {
        let pa = a.plane(0), pb = b.plane(0)
        var sum = 0, n = 0, worst = 0
        for y in 0..<pa.height {
            for x in 0..<pa.width where band(x, y) {
                let d = abs(Int(pa.row(y, as: UInt8.self)[x]) - Int(pb.row(y, as: UInt8.self)[x]))
                sum += d
                n += 1
                worst = max(worst, d)
            }
        }
        return (Double(sum) / Double(max(1, n)), worst)
    }

    /// Pixels within `distance` of where the coverage of `layer` crosses one half.
    static func edgeBand(_ layer: BokehSceneLayer, distance: Int) -> (Int, Int) -> Bool {
        let w = layer.width, h = layer.height
        var near = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let inside = layer.coverage[y * w + x] >= 0.5
                let xr = x + 1 < w ? layer.coverage[y * w + x + 1] >= 0.5 : inside
                let yd = y + 1 < h ? layer.coverage[(y + 1) * w + x] >= 0.5 : inside
                guard inside != xr || inside != yd else { continue }
                for yy in max(0, y - distance)...min(h - 1, y + distance) {
                    for xx in max(0, x - distance)...min(w - 1, x + distance) { near[yy * w + xx] = true }
                }
            }
        }
        return { x, y in near[y * w + x] }
    }
}
