// WalkerLimbs: the legs and arms of a whole figure walking through a wide synthetic scene,
// as upright rectangles stacked along each limb's swing.
import Foundation

/// A walking figure's legs and arms at one instant, in left-view pixels.
///
/// The rasterizer draws upright shapes only, so each leg is six rectangles and each arm three,
/// stacked along the limb's slant: the legs swing ±22° from the hips (at 52 % of the stature,
/// to the floor), the arms hang beside the torso, 6° outwards, and swing ±17° together. Limbs
/// 0–5 are the far leg, 6–11 the near one, 12–14 the far arm, 15–17 the near one.
struct WalkerLimbs {
    /// Rectangles per figure.
    static let count = 18
    /// Half the torso's width seen from the side, metres.
    static let torsoHalfWidth = 0.15
    /// The limbs drawn before the body (far arm, far leg) and after it (near leg, near arm).
    static let behind = [12, 13, 14, 0, 1, 2, 3, 4, 5], inFront = [6, 7, 8, 9, 10, 11, 15, 16, 17]

    /// Each limb rectangle, pixels.
    let rects: InlineArray<18, PixelRect>
    /// The box around all of them.
    let bounds: PixelRect
    /// World height of the hips, metres.
    let hips: Double
    /// Depth, metres, and disparity, pixels (the figure's).
    let depth: Double, disparity: Double

    init(x: Double, depth z: Double, stature: Double, shoulders: Double, gait: Double, camera: StereoCameraModel) {
        depth = z
        disparity = camera.disparity(atDepth: z)
        hips = 0.52 * stature
        var rects = InlineArray<18, PixelRect>(repeating: PixelRect(left: 0, top: 0, right: 0, bottom: 0))
        let swing = sin(gait)
        // One limb from (x0, y0) down `length` metres at `angle` from the vertical, in `parts`
        // rectangles `width` metres wide at the top narrowing by `taper`.
        func limb(first: Int, parts: Int, x0: Double, y0: Double, length: Double, angle: Double, width: Double, taper: Double) {
            let dx = length * sin(angle), dy = length * cos(angle)
            for j in 0..<parts {
                let s0 = Double(j) / Double(parts), s1 = Double(j + 1) / Double(parts)
                let w = (width - taper * s0) / 2
                let xa = x0 + s0 * dx, xb = x0 + s1 * dx
                rects[first + j] = camera.rect(
                    x0: min(xa, xb) - w, x1: max(xa, xb) + w, bottom: y0 - s1 * dy - 0.01, top: y0 - s0 * dy + 0.01, depth: z)
            }
        }
        let legSwing = 0.14 * swing, armSwing = 0.12 * swing
        limb(first: 0, parts: 6, x0: x - 0.07, y0: hips, length: hips, angle: -legSwing, width: 0.15, taper: 0.05)
        limb(first: 6, parts: 6, x0: x + 0.07, y0: hips, length: hips, angle: legSwing, width: 0.15, taper: 0.05)
        // The arms hang beside the torso and swing against the legs.
        let armY = shoulders - 0.03, armLength = 0.36 * stature, side = Self.torsoHalfWidth + 0.03
        limb(first: 12, parts: 3, x0: x - side, y0: armY, length: armLength, angle: armSwing - 0.1, width: 0.08, taper: 0.02)
        limb(first: 15, parts: 3, x0: x + side, y0: armY, length: armLength, angle: armSwing + 0.1, width: 0.08, taper: 0.02)
        var b = rects[0]
        for k in 1..<Self.count {
            let r = rects[k]
            b = PixelRect(left: min(b.left, r.left), top: min(b.top, r.top), right: max(b.right, r.right), bottom: max(b.bottom, r.bottom))
        }
        bounds = b
        self.rects = rects
    }

    /// Limb `k`'s layer: legs in `textures.legs`, arms in `textures.arms`.
    func layer(_ k: Int, textures: (legs: SceneTexture, arms: SceneTexture)) -> SceneLayer {
        let r = rects[k], texture = k < 12 ? textures.legs : textures.arms
        return SceneLayer(
            shape: .rectangle, bounds: r, depth: depth, disparity: disparity, texture: texture.view,
            wrapsHorizontally: false, wrapsVertically: false,
            horizontal: .stretched(from: r.left, to: r.right, size: texture.size),
            vertical: .stretched(from: r.top, to: r.bottom, size: texture.size))
    }
}

extension SubjectFigure {
    /// A walker's trousers (knit, denim or fleece: plain fabrics, whatever the top) and sleeves (its top).
    func limbTextures(library: SceneTextureLibrary) -> (legs: SceneTexture, arms: SceneTexture) {
        let plain = [3, 5, 2]
        return (library.clothing[plain[pose.clothing % plain.count] % library.clothing.count],
                library.clothing[pose.clothing % library.clothing.count])
    }
}
