// SceneLayer: one fronto-parallel surface of the synthetic scene placed for one frame — its
// shape in the left view, its constant disparity, and how its texture maps onto the pixels.

/// A flat surface facing the camera: a textured rectangle, rounded rectangle or ellipse at one
/// depth, so its disparity is one constant and the right view sees it shifted by exactly that.
///
/// A trivial value (no references), so a frame's layer list lives on the stack. The texture
/// mapping is affine in the left view; the rasterizer reads it in 16.16 fixed point, and the
/// right view adds ``lumaShift`` (= disparity × step), which makes the right view the left view
/// of each layer shifted by the disparity to within 1/65536 texel — exactly, for integer disparities.
struct SceneLayer {
    /// The outline of a layer.
    enum Shape {
        case rectangle, roundedRectangle, ellipse
    }

    /// One axis of a texture mapping: texel coordinate = `origin + step · p` at continuous
    /// left-view pixel coordinate `p`.
    struct Axis {
        var origin: Double
        var step: Double

        /// The texture spans `start ..< end` (pixels) once: `size` texels over that range.
        static func stretched(from start: Double, to end: Double, size: Int) -> Axis {
            let step = Double(size) / (end - start)
            return Axis(origin: -start * step, step: step)
        }

        /// `step` texels per pixel with texel 0 at pixel `start`.
        static func scaled(from start: Double, step: Double) -> Axis { Axis(origin: -start * step, step: step) }

        /// Anchored in the world: `texelsPerMetre` at a distance where one metre is
        /// `pixelsPerMetre` pixels, with texel `offset` at pixel `centre`.
        static func world(centre: Double, pixelsPerMetre: Double, texelsPerMetre: Double, offset: Double) -> Axis {
            let step = texelsPerMetre / pixelsPerMetre
            return Axis(origin: offset - centre * step, step: step)
        }
    }

    let shape: Shape
    /// Bounding box in the left view.
    let bounds: PixelRect
    /// Corner radius of a rounded rectangle, pixels.
    let cornerRadius: Double
    /// Depth in metres (drawing order: far first).
    let depth: Double
    /// Disparity in pixels (`f·B/depth`); the same everywhere on the layer.
    let disparity: Double
    /// The tile painted on the layer.
    let texture: TextureView
    /// Whether the tile repeats across (otherwise it is clamped at its edges).
    let wrapsHorizontally: Bool
    /// Whether the tile repeats along the height.
    let wrapsVertically: Bool
    /// Vertical mapping (luma texels per left-view row), evaluated once per row.
    let vertical: Axis
    /// 16.16 luma-texel u at the centre of left-view pixel 0.
    let lumaU: Int
    /// 16.16 chroma-texel u at the centre of left-view chroma sample 0.
    let chromaU: Int
    /// 16.16 texels per pixel: luma texels per luma pixel, equally chroma texels per chroma sample.
    let uStep: Int
    /// Added to ``lumaU`` in the right view: disparity × ``uStep``, rounded once.
    let lumaShift: Int
    /// Added to ``chromaU`` in the right view: half of the disparity (in chroma samples) × ``uStep``.
    let chromaShift: Int

    init(
        shape: Shape, bounds: PixelRect, cornerRadius: Double = 0, depth: Double, disparity: Double,
        texture: TextureView, wrapsHorizontally: Bool, wrapsVertically: Bool,
        horizontal: Axis, vertical: Axis
    ) {
        self.shape = shape
        self.bounds = bounds
        self.cornerRadius = cornerRadius
        self.depth = depth
        self.disparity = disparity
        self.texture = texture
        self.wrapsHorizontally = wrapsHorizontally
        self.wrapsVertically = wrapsVertically
        self.vertical = vertical
        let step = Int((horizontal.step * 65536).rounded())
        uStep = step
        // Luma pixel x has its centre at x + 0.5.
        lumaU = Int(((horizontal.origin + 0.5 * horizontal.step) * 65536).rounded(.down))
        // Chroma sample c has its centre at luma x = 2c + 1; chroma texel j sits at luma texel 2j + 0.5.
        chromaU = Int(((horizontal.origin + horizontal.step - 0.5) / 2 * 65536).rounded(.down))
        lumaShift = Int((disparity * Double(step)).rounded())
        chromaShift = Int((disparity * Double(step) / 2).rounded())
    }

    /// The continuous x-range `lo ..< hi` the layer covers on the horizontal line at `y`, or
    /// `nil` when the line misses it. O(1): one square root at most.
    @inline(__always)
    func interval(atY y: Double) -> (lo: Double, hi: Double)? {
        guard y >= bounds.top && y < bounds.bottom else { return nil }
        switch shape {
        case .rectangle:
            return (bounds.left, bounds.right)
        case .roundedRectangle:
            let r = cornerRadius
            var inset = 0.0
            if y < bounds.top + r {
                let dy = bounds.top + r - y
                inset = r - max(0, r * r - dy * dy).squareRoot()
            } else if y > bounds.bottom - r {
                let dy = y - (bounds.bottom - r)
                inset = r - max(0, r * r - dy * dy).squareRoot()
            }
            return (bounds.left + inset, bounds.right - inset)
        case .ellipse:
            let halfHeight = bounds.height / 2, halfWidth = bounds.width / 2
            let t = (y - (bounds.top + halfHeight)) / halfHeight
            let span = halfWidth * max(0, 1 - t * t).squareRoot()
            let centre = bounds.left + halfWidth
            return span > 0 ? (centre - span, centre + span) : nil
        }
    }
}
