// StereoTestPair: small synthetic rectified pairs with exact ground truth for the cases the
// moving synthetic scene lacks — slanted planes, thin objects, low texture, occlusion edges —
// used by the matcher's tests and benchmark.
import CineMedia
import CineVision
import Foundation

/// A rectified gray8 stereo pair with the exact disparity of every left pixel.
public struct StereoTestPair: Sendable {
    /// The kinds of scene.
    public enum Scene: String, Sendable, CaseIterable {
        /// A slanted background plane and a slanted foreground board (disparity varies along x and y).
        case slantedPlanes = "slanted-planes"
        /// Thin vertical and horizontal bars (3–5 px) in front of a wall.
        case thinObjects = "thin-objects"
        /// A weakly textured foreground (contrast ±3 grey levels) over a textured wall.
        case lowTexture = "low-texture"
        /// Several fronto-parallel boxes with large disparity jumps (wide occluded strips).
        case occlusionEdges = "occlusion-edges"
    }

    /// The reference view, gray8.
    public let left: Image
    /// The other view, gray8: left pixel x appears at x − d here.
    public let right: Image
    /// Ground-truth disparity of every left pixel, float32.
    public let truth: Image

    /// One layer: a disparity plane `d = a·x + b·y + c` (left-view pixels) over a rectangle.
    struct Layer {
        var x0, y0, x1, y1: Double
        var a, b, c: Double
        var contrast: Double
        var seed: UInt64
        func disparity(_ x: Double, _ y: Double) -> Double { a * x + b * y + c }
        func covers(_ x: Double, _ y: Double) -> Bool { x >= x0 && x < x1 && y >= y0 && y < y1 }
    }

    /// Renders `scene` at `width` × `height`; disparities scale with the width (as a camera's
    /// would), up to about `width / 10`. `noise` is the standard deviation of sensor noise in grey
    /// levels; `noiseSeed` (default: `seed`) varies only the noise, like two frames of a still camera.
    public init(
        _ scene: Scene, width: Int, height: Int, noise: Double = 1.0, seed: UInt64 = 7, noiseSeed: UInt64? = nil
    ) {
        let w = Double(width), h = Double(height), k = w / 320
        var layers: [Layer] = []  // back to front
        let wall = Layer(x0: -1e9, y0: -1e9, x1: 1e9, y1: 1e9, a: 0, b: 0, c: 6 * k, contrast: 60, seed: seed)
        switch scene {
        case .slantedPlanes:
            layers.append(
                Layer(
                    x0: -1e9, y0: -1e9, x1: 1e9, y1: 1e9, a: 0.02, b: 0.015 * w / h, c: 3 * k,
                    contrast: 60, seed: seed))
            layers.append(
                Layer(
                    x0: 0.3 * w, y0: 0.25 * h, x1: 0.75 * w, y1: 0.8 * h, a: -0.04, b: 0.02,
                    c: 24 * k, contrast: 50, seed: seed + 1))
        case .thinObjects:
            layers.append(wall)
            for i in 0..<5 {
                let x = (0.15 + 0.17 * Double(i)) * w
                layers.append(
                    Layer(
                        x0: x, y0: 0.1 * h, x1: x + Double(3 + i % 3) * k, y1: 0.9 * h, a: 0, b: 0,
                        c: (18 + 3 * Double(i)) * k, contrast: 70, seed: seed + UInt64(i) + 1))
            }
            layers.append(
                Layer(
                    x0: 0.05 * w, y0: 0.5 * h, x1: 0.95 * w, y1: 0.5 * h + 4 * k, a: 0, b: 0,
                    c: 26 * k, contrast: 70, seed: seed + 9))
        case .lowTexture:
            layers.append(wall)
            layers.append(
                Layer(
                    x0: 0.25 * w, y0: 0.2 * h, x1: 0.75 * w, y1: 0.8 * h, a: 0, b: 0, c: 20 * k,
                    contrast: 6, seed: seed + 1))
        case .occlusionEdges:
            layers.append(wall)
            layers.append(
                Layer(
                    x0: 0.1 * w, y0: 0.15 * h, x1: 0.4 * w, y1: 0.85 * h, a: 0, b: 0, c: 30 * k,
                    contrast: 55, seed: seed + 1))
            layers.append(
                Layer(
                    x0: 0.55 * w, y0: 0.3 * h, x1: 0.9 * w, y1: 0.7 * h, a: 0, b: 0, c: 20 * k,
                    contrast: 55, seed: seed + 2))
            layers.append(
                Layer(
                    x0: 0.62 * w, y0: 0.4 * h, x1: 0.72 * w, y1: 0.6 * h, a: 0, b: 0, c: 31 * k,
                    contrast: 55, seed: seed + 3))
        }
        left = Image(width: width, height: height, format: .gray8)
        right = Image(width: width, height: height, format: .gray8)
        truth = Image(width: width, height: height, format: .float32)
        let scaleK = k
        var rng = (noiseSeed ?? seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        func gaussian() -> Double {
            func next() -> Double {
                rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
                return Double(rng >> 11) / Double(1 << 53)
            }
            return sqrt(-2 * log(max(1e-12, next()))) * cos(2 * .pi * next())
        }
        for y in 0..<height {
            let ly = left.plane(0).row(y, as: UInt8.self), ry = right.plane(0).row(y, as: UInt8.self)
            let ty = truth.plane(0).row(y, as: Float.self)
            let fy = Double(y) + 0.5
            for x in 0..<width {
                let fx = Double(x) + 0.5
                // Left: the front-most layer covering the pixel.
                let top = layers.lastIndex { $0.covers(fx, fy) }!
                ly[x] = Self.pixel(Self.shade(layers[top], fx, fy, scaleK) + noise * gaussian())
                ty[x] = Float(layers[top].disparity(fx, fy))
                // Right: the front-most layer whose surface lands on this right pixel.
                var value = 128.0
                for layer in layers.reversed() {
                    // xr = xl − (a·xl + b·y + c)  →  xl = (xr + b·y + c) / (1 − a)
                    let xl = (fx + layer.b * fy + layer.c) / (1 - layer.a)
                    if layer.covers(xl, fy) {
                        value = Self.shade(layer, xl, fy, scaleK)
                        break
                    }
                }
                ry[x] = Self.pixel(value + noise * gaussian())
            }
        }
    }

    static func pixel(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }

    /// The layer's texture at a left-view point: smooth value noise at three scales, so every
    /// window has structure at the matcher's scale (unless the contrast is low).
    static func shade(_ layer: Layer, _ x: Double, _ y: Double, _ k: Double) -> Double {
        var v = 0.0
        for (i, cell) in [3.0, 7.0, 17.0].enumerated() {
            v += noise(x / (cell * k), y / (cell * k), layer.seed &+ UInt64(i) &* 7919) * [0.5, 0.3, 0.2][i]
        }
        return 128 + layer.contrast * (2 * v - 1)
    }

    /// Bilinearly interpolated lattice noise in 0 … 1.
    static func noise(_ x: Double, _ y: Double, _ seed: UInt64) -> Double {
        let xi = floor(x), yi = floor(y)
        let fx = x - xi, fy = y - yi
        func lattice(_ i: Double, _ j: Double) -> Double {
            var hsh = UInt64(bitPattern: Int64(i) &* 73_856_093) ^ UInt64(bitPattern: Int64(j) &* 19_349_663) ^ seed
            hsh = (hsh ^ (hsh >> 33)) &* 0xff51afd7ed558ccd
            hsh = (hsh ^ (hsh >> 33)) &* 0xc4ceb9fe1a85ec53
            return Double((hsh ^ (hsh >> 33)) >> 11) / Double(1 << 53)
        }
        let a = lattice(xi, yi), b = lattice(xi + 1, yi), c = lattice(xi, yi + 1), d = lattice(xi + 1, yi + 1)
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }
}
