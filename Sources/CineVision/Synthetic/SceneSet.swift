// SceneSet: the static part of a synthetic scene (a film set): brick backdrop, two paintings,
// a sideboard with books and two columns, placed by the seed for one camera.

/// The layers that never move, sorted far to near, in left-view pixels of one camera.
///
/// - Backdrop: an endless brick wall at ``backdropDepth`` (10 m), texture anchored in the world.
/// - Two framed paintings hung on it (3 cm proud of the wall).
/// - A sideboard at 4.0–4.4 m with a row of books standing on it (18 cm further back).
/// - Two concrete columns, floor to ceiling, at 3.4–4.0 m and 4.5–5.0 m, one each side.
///
/// A wide set (a courtyard, for people walking far away) has the wall at 60 m with bricks four
/// times as large, no paintings, books or sideboard, two concrete posts standing on the ground at
/// 14–20 m and 25–35 m instead of the columns, and the ground: 8-pixel bands of paving from the
/// wall's foot to the bottom of the frame, each at the depth of the floor it shows (the floor
/// seen by a camera 1.45 m above it), paved with the wall's bricks.
struct SceneSet: Sendable {
    /// Depth of the backdrop wall, metres.
    static let backdropDepth = 10.0
    /// Depth of the backdrop wall in a wide set, metres.
    static let wideBackdropDepth = 60.0

    /// Depth of this set's backdrop wall, metres.
    let backdropDepth: Double

    /// The floor of a wide set in bands 8 pixels high, from the foot of the wall at `farthest` to
    /// the bottom of the frame, each at the depth of the floor at its middle row.
    private static func ground(camera: StereoCameraModel, farthest: Double, library: SceneTextureLibrary) -> [SceneLayer] {
        let f = camera.focalLength, h = camera.cameraHeight
        var out: [SceneLayer] = []
        var top = camera.pixelY(0, depth: farthest)
        while top < Double(camera.height) {
            let bottom = top + 8
            let depth = f * h / ((top + bottom) / 2 - camera.centreY)
            let rect = PixelRect(left: -1e7, top: top, right: 1e7, bottom: bottom)
            out.append(
                SceneLayer(
                    shape: .rectangle, bounds: rect, depth: depth, disparity: camera.disparity(atDepth: depth),
                    texture: library.wall.view, wrapsHorizontally: true, wrapsVertically: true,
                    horizontal: .world(centre: camera.centreX, pixelsPerMetre: f / depth, texelsPerMetre: 64, offset: 0),
                    // Along the floor a band of rows spans (depth change) metres: a paving stone shortens with distance.
                    vertical: .world(centre: camera.centreY, pixelsPerMetre: f / depth / 4, texelsPerMetre: 64, offset: 0)))
            top = bottom
        }
        return out
    }

    /// The static layers, far first.
    let layers: [SceneLayer]
    /// The sideboard's top in world metres (where the ball prop rolls): its ends, its height and
    /// the depth of its front.
    let sideboard: (left: Double, right: Double, top: Double, depth: Double)
    /// The two columns in world metres: left and right edges and depth.
    let columns: [(left: Double, right: Double, depth: Double)]

    init(camera: StereoCameraModel, seed: UInt64, library: SceneTextureLibrary, wide: Bool = false) {
        var random = SeededRandom(seed: seed ^ 0x5E7_5E7)
        let f = camera.focalLength
        var layers: [SceneLayer] = []

        let wallDepth = wide ? SceneSet.wideBackdropDepth : SceneSet.backdropDepth
        backdropDepth = wallDepth
        let brickTexels = wide ? 32.0 : 128
        layers.append(
            SceneLayer(
                shape: .rectangle, bounds: PixelRect(left: -1e7, top: -1e7, right: 1e7, bottom: 1e7),
                depth: wallDepth, disparity: camera.disparity(atDepth: wallDepth), texture: library.wall.view,
                wrapsHorizontally: true, wrapsVertically: true,
                horizontal: .world(
                    centre: camera.centreX, pixelsPerMetre: f / wallDepth, texelsPerMetre: brickTexels,
                    offset: random.uniform(0, 512)),
                vertical: .world(
                    centre: camera.centreY, pixelsPerMetre: f / wallDepth, texelsPerMetre: brickTexels,
                    offset: random.uniform(0, 512))))

        let first = random.index(below: library.paintings.count)
        let second = (first + 1 + random.index(below: library.paintings.count - 1)) % library.paintings.count
        for (index, centreRange) in wide ? [] : [(first, -3.6 ... -2.2), (second, 1.8...3.4)] {
            let depth = wallDepth - 0.03
            let width = random.uniform(1.2, 1.8), height = random.uniform(0.9, 1.3)
            let centre = random.uniform(centreRange.lowerBound, centreRange.upperBound)
            let bottom = random.uniform(1.5, 1.9)
            let rect = camera.rect(
                x0: centre - width / 2, x1: centre + width / 2, bottom: bottom,
                top: bottom + height, depth: depth)
            layers.append(
                SceneLayer(
                    shape: .rectangle, bounds: rect, depth: depth, disparity: camera.disparity(atDepth: depth),
                    texture: library.paintings[index].view, wrapsHorizontally: false, wrapsVertically: false,
                    horizontal: .stretched(from: rect.left, to: rect.right, size: 256),
                    vertical: .stretched(from: rect.top, to: rect.bottom, size: 256)))
        }

        let sideboardDepth = random.uniform(4.0, 4.4)
        let sideboardLeft = random.uniform(-1.9, -1.3), sideboardRight = sideboardLeft + random.uniform(2.2, 2.8)
        let sideboardTop = 0.92
        sideboard = (sideboardLeft, sideboardRight, sideboardTop, sideboardDepth)
        let booksDepth = sideboardDepth + 0.18
        let booksLeft = sideboardLeft + random.uniform(0.1, 0.5)
        let booksRect = camera.rect(
            x0: booksLeft, x1: booksLeft + random.uniform(0.8, 1.3), bottom: sideboardTop,
            top: sideboardTop + 0.26, depth: booksDepth)
        if !wide {
            layers.append(
                SceneLayer(
                    shape: .rectangle, bounds: booksRect, depth: booksDepth,
                    disparity: camera.disparity(atDepth: booksDepth),
                    texture: library.bookshelf.view, wrapsHorizontally: true, wrapsVertically: false,
                    horizontal: .world(
                        centre: camera.centreX, pixelsPerMetre: f / booksDepth, texelsPerMetre: 320,
                        offset: random.uniform(0, 256)),
                    vertical: .stretched(from: booksRect.top, to: booksRect.bottom, size: 256)))
            let sideboardRect = camera.rect(
                x0: sideboardLeft, x1: sideboardRight, bottom: 0.5, top: sideboardTop,
                depth: sideboardDepth)
            layers.append(
                SceneLayer(
                    shape: .rectangle, bounds: sideboardRect, depth: sideboardDepth,
                    disparity: camera.disparity(atDepth: sideboardDepth), texture: library.sideboard.view,
                    wrapsHorizontally: true, wrapsVertically: false,
                    horizontal: .world(
                        centre: camera.centreX, pixelsPerMetre: f / sideboardDepth, texelsPerMetre: 160,
                        offset: random.uniform(0, 256)),
                    vertical: .stretched(from: sideboardRect.top, to: sideboardRect.bottom, size: 256)))
        }

        var columns: [(left: Double, right: Double, depth: Double)] = []
        for side in [-1.0, 1.0] {
            let depth = wide ? (side < 0 ? random.uniform(14, 20) : random.uniform(25, 35))
                : side < 0 ? random.uniform(3.4, 4.0) : random.uniform(4.5, 5.0)
            let x =
                side * depth * camera.tanHalfWidth * (side < 0 ? random.uniform(0.45, 0.75) : random.uniform(0.35, 0.7))
            let width = random.uniform(0.3, 0.4)
            columns.append((x - width / 2, x + width / 2, depth))
            let rect = camera.rect(x0: x - width / 2, x1: x + width / 2, bottom: wide ? 0 : -20, top: 20, depth: depth)
            let horizontal = SceneLayer.Axis.stretched(from: rect.left, to: rect.right, size: 256)
            layers.append(
                SceneLayer(
                    shape: .rectangle, bounds: rect, depth: depth, disparity: camera.disparity(atDepth: depth),
                    texture: library.column.view, wrapsHorizontally: false, wrapsVertically: true,
                    horizontal: horizontal, vertical: .scaled(from: rect.top, step: horizontal.step)))
        }

        self.columns = columns
        if wide { layers += SceneSet.ground(camera: camera, farthest: wallDepth, library: library) }
        // Stable sort, far first.
        self.layers = layers.enumerated()
            .sorted {
                $0.element.depth != $1.element.depth ? $0.element.depth > $1.element.depth : $0.offset < $1.offset
            }
            .map(\.element)
    }
}
