// SceneTexturePatterns: the procedural recipes for every texture tile of the synthetic set —
// brick wall, paintings, sideboard, books, concrete, clothing, faces, hair and skin.
import Foundation

/// Recipes that paint texture tiles. Run once per process (by ``SceneTextureLibrary``), never
/// per frame, so clarity matters more than speed here.
///
/// Every recipe builds texture at several scales at once (large stains or folds, mid-sized
/// bricks or stripes, fine grain), because a stereo matcher needs texture at the scale it
/// works at, whatever the resolution.
enum SceneTexturePatterns {
    // MARK: Set dressing

    /// A painted wall of irregular bricks (random lengths per course, so it does not repeat
    /// within a tile), with mortar, per-brick tone, weathering stains and fine grain. 512 texels, wraps.
    static func brickWall(salt: UInt64) -> SceneTexture {
        let size = 512, courseHeight = 16
        var random = SeededRandom(seed: salt)
        var offsets: [Int] = []
        var joints: [[Int]] = []
        for _ in 0..<(size / courseHeight) {
            offsets.append(random.index(below: size))
            var course = [0]
            var x = 0
            while true {
                let length = 26 + random.index(below: 34)
                if x + length > size - 20 { break }
                x += length
                course.append(x)
            }
            course.append(size)
            joints.append(course)
        }
        let grain = ValueNoise(salt: salt &+ 1), stain = ValueNoise(salt: salt &+ 2)
        let paints = [SceneColor(0.82, 0.74, 0.64), SceneColor(0.76, 0.52, 0.42), SceneColor(0.88, 0.84, 0.76)]
        let mortar = SceneColor(0.62, 0.61, 0.58)
        return SceneTexture(size: size) { x, y in
            let course = Int(y) / courseHeight, inCourse = Int(y) % courseHeight
            let local = (Int(x) - offsets[course] + size) % size
            let row = joints[course]
            var brick = 0
            while row[brick + 1] <= local { brick += 1 }
            let fine = grain.fractal(x, y, cell: 4, octaves: 2, periodX: size, periodY: size)
            let large = stain.fractal(x, y, cell: 128, octaves: 4, periodX: size, periodY: size)
            let speck = SeededRandom.unit(Int(x), Int(y), salt &+ 3) - 0.5
            let weather = 0.84 + 0.4 * (large - 0.5) + 0.08 * speck
            if inCourse < 2 || local - row[brick] < 2 {
                return mortar * (weather * (0.9 + 0.2 * fine))
            }
            let pick = SeededRandom.unit(course, brick, salt &+ 4)
            let base =
                pick < 0.5
                ? SceneColor.mix(paints[0], paints[2], pick * 2)
                : SceneColor.mix(paints[0], paints[1], (pick - 0.5) * 2)
            var shade = 0.8 + 0.3 * SeededRandom.unit(course, brick, salt &+ 5)
            if inCourse == 2 { shade *= 1.08 }
            if inCourse == courseHeight - 1 { shade *= 0.8 }
            return base * (shade * weather * (0.82 + 0.36 * fine))
        }
    }

    /// A framed abstract painting: coloured ellipses and bars on a brushed canvas. 256 texels,
    /// mapped once over the frame.
    static func painting(salt: UInt64) -> SceneTexture {
        struct Blob { var x, y, rx, ry: Double; var color: SceneColor; var isBar: Bool }
        var random = SeededRandom(seed: salt)
        func color() -> SceneColor {
            SceneColor(random.uniform(0.1, 0.95), random.uniform(0.1, 0.9), random.uniform(0.1, 0.95))
        }
        let canvas = SceneColor(random.uniform(0.6, 0.9), random.uniform(0.6, 0.9), random.uniform(0.55, 0.85))
        var blobs: [Blob] = []
        for _ in 0..<7 {
            blobs.append(
                Blob(
                    x: random.uniform(40, 216), y: random.uniform(40, 216),
                    rx: random.uniform(14, 60), ry: random.uniform(14, 60),
                    color: color(), isBar: random.unit() < 0.4))
        }
        let brush = ValueNoise(salt: salt &+ 1)
        let frameColor = SceneColor(0.28, 0.18, 0.11)
        return SceneTexture(size: 256) { x, y in
            let edge = min(min(x, y), min(255 - x, 255 - y))
            if edge < 12 {
                let bevel = edge < 3 ? 0.7 : (edge < 9 ? 1.0 : 0.55)
                return frameColor * (bevel * (0.85 + 0.3 * brush.sample(x * 0.3, y * 0.3, cell: 2)))
            }
            var c = canvas
            for blob in blobs {
                let dx = (x - blob.x) / blob.rx, dy = (y - blob.y) / blob.ry
                let inside = blob.isBar ? max(abs(dx), abs(dy)) : (dx * dx + dy * dy)
                c = SceneColor.mix(c, blob.color, smoothstep(1.05, 0.95, inside))
            }
            let strokes = brush.fractal(x * 0.5, y * 2, cell: 8, octaves: 3)
            return c * (0.86 + 0.28 * strokes)
        }
    }

    /// A wooden sideboard front: grain, cupboard doors every 64 texels with knobs, a lighter top
    /// edge and a dark plinth. 256 texels; wraps across, mapped once over the height.
    static func sideboard(salt: UInt64) -> SceneTexture {
        let warp = ValueNoise(salt: salt), grain = ValueNoise(salt: salt &+ 1)
        let wood = SceneColor(0.52, 0.33, 0.19), brass = SceneColor(0.82, 0.74, 0.48)
        return SceneTexture(size: 256) { x, y in
            let bend = warp.fractal(x * 0.25, y, cell: 16, octaves: 3, periodX: 64, periodY: 256)
            let rings = 0.5 + 0.5 * sin(2 * Double.pi * (y / 256 * 9 + 2.2 * bend))
            let fine = grain.fractal(x, y, cell: 2, octaves: 2, periodX: 256, periodY: 256)
            var shade = 0.76 + 0.2 * rings + 0.14 * (fine - 0.5)
            if y < 16 { shade *= y < 2 ? 0.6 : 1.18 }
            if y > 238 { shade *= 0.5 }
            let inDoor = Int(x) % 64
            if inDoor < 2 && y >= 16 && y <= 238 { shade *= 0.45 }
            let knob = hypot(Double(inDoor) - 56, y - 64)
            if knob < 5 { return brass * (knob < 3 ? 1.1 : 0.7) }
            return wood * shade
        }
    }

    /// A row of books of random widths, heights and colours, with gilt bands and titles, in
    /// front of a dark shelf back. 256 texels; wraps across, mapped once over the height.
    static func bookshelf(salt: UInt64) -> SceneTexture {
        struct Book { var start, width: Int; var top: Double; var color: SceneColor }
        var random = SeededRandom(seed: salt)
        let palette = [
            SceneColor(0.55, 0.12, 0.12), SceneColor(0.12, 0.25, 0.5), SceneColor(0.15, 0.4, 0.2),
            SceneColor(0.85, 0.78, 0.6), SceneColor(0.3, 0.22, 0.15), SceneColor(0.75, 0.45, 0.15),
            SceneColor(0.2, 0.2, 0.22), SceneColor(0.6, 0.55, 0.7),
        ]
        var books: [Book] = []
        var x = 0
        while x < 256 {
            var width = 6 + random.index(below: 13)
            if 256 - x - width < 6 { width = 256 - x }
            books.append(
                Book(
                    start: x, width: width, top: random.uniform(8, 110),
                    color: palette[random.index(below: palette.count)] * random.uniform(0.8, 1.15)))
            x += width
        }
        let grain = ValueNoise(salt: salt &+ 1)
        let back = SceneColor(0.13, 0.11, 0.10), gilt = SceneColor(0.86, 0.74, 0.38)
        return SceneTexture(size: 256) { x, y in
            let noise = grain.fractal(x, y, cell: 4, octaves: 2, periodX: 256, periodY: 256)
            if y > 248 { return SceneColor(0.42, 0.27, 0.16) * (0.8 + 0.4 * noise) }
            var index = 0
            while books[index].start + books[index].width <= Int(x) { index += 1 }
            let book = books[index]
            if y < book.top { return back * (0.7 + 0.6 * noise) }
            let s = (x - Double(book.start) + 0.5) / Double(book.width)
            let round = 0.68 + 0.32 * (max(0, 1 - (2 * s - 1) * (2 * s - 1))).squareRoot()
            let along = y - book.top
            if (along > 14 && along < 20) || (along > 200 - book.top && along < 206 - book.top) {
                return gilt * round
            }
            let letters =
                along > 34 && along < 90 && s > 0.3 && s < 0.7
                && SeededRandom.unit(Int(x) / 2, Int(y) / 3, salt &+ UInt64(index)) < 0.55
            let c = letters ? SceneColor.mix(book.color, SceneColor(0.95, 0.92, 0.85), 0.6) : book.color
            return c * (round * (0.9 + 0.2 * noise))
        }
    }

    /// A round concrete column: mottled grey with pores, gentle flutes and cylindrical shading.
    /// 256 texels; mapped once across the width, wraps along the height.
    static func concreteColumn(salt: UInt64) -> SceneTexture {
        let mottle = ValueNoise(salt: salt)
        let concrete = SceneColor(0.70, 0.68, 0.64)
        return SceneTexture(size: 256) { x, y in
            let s = (x + 0.5) / 256
            let n = mottle.fractal(x, y, cell: 32, octaves: 5, periodX: 256, periodY: 256)
            let shape = max(0, 1 - (2 * s - 1) * (2 * s - 1)).squareRoot()
            var shade =
                (0.45 + 0.5 * shape + 0.12 * gaussian(s - 0.35, 0.12)) * (1 + 0.06 * cos(2 * Double.pi * s * 10))
            shade *= 0.75 + 0.5 * n
            if SeededRandom.unit(Int(x), Int(y), salt &+ 1) < 0.015 { shade *= 0.6 }
            return concrete * shade
        }
    }

    // MARK: People

    /// The number of clothing patterns ``clothing(pattern:salt:)`` knows.
    static let clothingPatternCount = 6

    /// A torso's clothing: stripes, plaid, knit, denim, dots or heather fleece, with cylindrical
    /// shading and soft folds. 256 texels; mapped once across the body, wraps along it.
    static func clothing(pattern: Int, salt: UInt64) -> SceneTexture {
        let folds = ValueNoise(salt: salt), weave = ValueNoise(salt: salt &+ 1)
        return SceneTexture(size: 256) { x, y in
            let s = (x + 0.5) / 256
            let torso = 0.66 + 0.34 * max(0, 1 - (2 * s - 1) * (2 * s - 1)).squareRoot()
            let fold = folds.fractal(x, y, cell: 64, octaves: 2, periodX: 256, periodY: 256)
            let fabric = weave.sample(x, y, cell: 2, periodX: 256, periodY: 256)
            let shade = torso * (0.86 + 0.28 * fold) * (0.95 + 0.1 * fabric)
            let ix = Int(x), iy = Int(y)
            let base: SceneColor
            switch pattern % clothingPatternCount {
            case 0:  // breton stripes
                let m = iy % 32
                base =
                    m >= 20 && m < 22
                    ? SceneColor(0.7, 0.15, 0.12)
                    : (m < 12 ? SceneColor(0.12, 0.16, 0.36) : SceneColor(0.9, 0.87, 0.78))
            case 1:  // tartan
                let a = ix % 64 < 20, b = iy % 64 < 20
                if ix % 64 == 40 || iy % 64 == 40 {
                    base = SceneColor(0.85, 0.75, 0.3)
                } else {
                    base = SceneColor(0.62, 0.13, 0.1) * (a && b ? 0.4 : (a || b ? 0.65 : 1))
                }
            case 2:  // cable knit
                let cx = Double(ix % 8), cy = Double(iy % 8)
                let v = abs(cx - 3.5) / 3.5
                let stitch = (cy + v * 4).truncatingRemainder(dividingBy: 8) < 4 ? 1.0 : 0.78
                base = SceneColor(0.22, 0.46, 0.32) * (ix % 8 == 0 ? 0.7 : stitch)
            case 3:  // denim jacket with a button placket
                let twill = (ix + iy) % 4 < 2 ? 1.08 : 0.92
                let placket = abs(s - 0.5) < 0.012
                let button = hypot(x - 128, Double(iy % 64) - 32) < 5
                base =
                    button
                    ? SceneColor(0.78, 0.72, 0.6)
                    : SceneColor(0.22, 0.32, 0.52) * (placket ? 0.6 : twill)
            case 4:  // polka dots
                let row = iy / 32
                let dx = Double((ix + (row % 2) * 16) % 32) - 15.5, dy = Double(iy % 32) - 15.5
                base = hypot(dx, dy) < 7 ? SceneColor(0.15, 0.12, 0.1) : SceneColor(0.82, 0.62, 0.16)
            default:  // heather fleece with a zip
                let fleck = SeededRandom.unit(ix, iy, salt &+ 2)
                base =
                    abs(s - 0.5) < 0.008
                    ? SceneColor(0.15, 0.15, 0.16)
                    : SceneColor(0.56, 0.56, 0.58) * (0.82 + 0.36 * fleck)
            }
            return base * shade
        }
    }

    /// A face filling the head ellipse: shaded skin, hair above the hairline, brows, a darker
    /// eye band with eyes, a lighter nose bridge and cheeks, nostrils and a darker mouth — the
    /// light/dark structure Haar face cascades respond to (OpenCV 4's frontal-face cascades find these
    /// faces at 1280 × 720, and not the back of the head). 256 texels over the head's bounding box.
    static func face(skin: SceneColor, hair: SceneColor, salt: UInt64) -> SceneTexture {
        let strands = ValueNoise(salt: salt), pores = ValueNoise(salt: salt &+ 1)
        let sclera = SceneColor(0.88, 0.85, 0.82), iris = SceneColor(0.28, 0.18, 0.1)
        let lipColor = SceneColor(0.62, 0.28, 0.28), dark = SceneColor(0.1, 0.06, 0.05)
        return SceneTexture(size: 256) { u, v in
            let x = (u + 0.5) / 128 - 1, y = (v + 0.5) / 128 - 1
            let r2 = min(1, x * x + y * y)
            let hairShade = 0.7 + 0.5 * strands.fractal(u, v * 0.1, cell: 2, octaves: 2)
            let hairColor = hair * (hairShade * (1 - 0.3 * r2))
            let hairline = -0.45 + 0.32 * x * x
            let hairAmount = max(
                smoothstep(hairline + 0.04, hairline - 0.04, y),
                smoothstep(0.8, 0.9, abs(x)) * smoothstep(0.25, 0.05, y))
            var light = 1 - 0.3 * pow(r2, 1.5) + 0.05 * (-x * 0.6 - y * 0.4)
            light -= 0.2 * gaussian(y + 0.13, 0.11) * smoothstep(0.9, 0.6, abs(x))
            light += 0.14 * gaussian(x, 0.055) * smoothstep(-0.25, -0.08, y) * smoothstep(0.36, 0.22, y)
            light -= 0.08 * gaussian(abs(x) - 0.13, 0.035) * smoothstep(-0.02, 0.1, y) * smoothstep(0.38, 0.28, y)
            light += 0.07 * gaussian(hypot(abs(x) - 0.45, y - 0.2), 0.13)
            light -= 0.12 * smoothstep(0.7, 0.95, y)
            light += 0.05 * gaussian(hypot(x + 0.1, y + 0.5), 0.2)
            light *= 0.97 + 0.06 * pores.sample(u, v, cell: 2)
            var color = skin * light
            // Brows: arched dark strokes above the eyes.
            let bx = abs(x)
            let browY = -0.33 - 0.06 * (1 - pow((bx - 0.38) / 0.24, 2))
            let brow = smoothstep(0.05, 0.03, abs(y - browY)) * smoothstep(0.13, 0.17, bx) * smoothstep(0.65, 0.6, bx)
            color = SceneColor.mix(color, hair * 0.9, 0.85 * brow)
            // Eyes: sclera, iris, pupil and an upper lid line.
            let ex = (bx - 0.36) / 0.16, ey = (y + 0.13) / 0.065
            let e = ex * ex + ey * ey
            let eyeAmount = smoothstep(1.0, 0.8, e)
            if eyeAmount > 0 {
                let d = hypot(bx - 0.36, y + 0.13)
                let eye = SceneColor.mix(
                    SceneColor.mix(sclera * (light * 0.95), iris, smoothstep(0.06, 0.05, d)),
                    dark, smoothstep(0.028, 0.02, d))
                color = SceneColor.mix(color, eye, eyeAmount)
            }
            let lid = smoothstep(0.3, 0.0, abs(e - 1)) * (ey < 0.2 ? 1 : 0.3) * smoothstep(1.6, 1.2, ex * ex)
            color = SceneColor.mix(color, dark, 0.7 * lid)
            // Nostrils.
            let nostril = pow((bx - 0.075) / 0.045, 2) + pow((y - 0.33) / 0.025, 2)
            color = color * (1 - 0.45 * smoothstep(1.2, 0.7, nostril))
            // Mouth: darker lips and the line between them.
            let mx = x / 0.24, my = (y - 0.56) / 0.065
            let lips = smoothstep(1.1, 0.85, mx * mx + my * my)
            color = SceneColor.mix(color, SceneColor.mix(skin, lipColor, 0.55) * (light * 0.85), lips)
            let line = smoothstep(0.25, 0.08, abs(my)) * smoothstep(1.0, 0.7, mx * mx)
            color = SceneColor.mix(color, SceneColor(0.2, 0.08, 0.08), 0.7 * line)
            return SceneColor.mix(color, hairColor, hairAmount)
        }
    }

    /// The inside of an open mouth, stretched over its ellipse: dark red shading to near black
    /// in the middle, the upper teeth along the top. 64 texels.
    static func mouth() -> SceneTexture {
        SceneTexture(size: 64) { u, v in
            let x = (u + 0.5) / 32 - 1, y = (v + 0.5) / 32 - 1
            let inside = SceneColor.mix(SceneColor(0.36, 0.1, 0.1), SceneColor(0.08, 0.03, 0.03), smoothstep(1, 0.2, x * x + y * y))
            let teeth = smoothstep(-0.45, -0.6, y) * smoothstep(0.75, 0.55, abs(x))
            return SceneColor.mix(inside, SceneColor(0.86, 0.83, 0.76), teeth)
        }
    }

    /// The back of a head: hair strands, a lighter crown and a glimpse of neck at the nape.
    /// 256 texels over the head's bounding box.
    static func backOfHead(skin: SceneColor, hair: SceneColor, salt: UInt64) -> SceneTexture {
        let strands = ValueNoise(salt: salt)
        return SceneTexture(size: 256) { u, v in
            let x = (u + 0.5) / 128 - 1, y = (v + 0.5) / 128 - 1
            let r2 = min(1, x * x + y * y)
            let strand = strands.fractal(u, v * 0.08, cell: 2, octaves: 3)
            let crown = 0.12 * gaussian(hypot(x, y + 0.45), 0.25)
            let shade = 1 - 0.35 * pow(r2, 1.5)
            let color = hair * ((0.7 + 0.5 * strand + crown) * shade)
            let nape = smoothstep(0.72, 0.92, y) * smoothstep(0.55, 0.35, abs(x))
            return SceneColor.mix(color, skin * (0.8 * shade), nape)
        }
    }

    /// A neck: skin with cylindrical shading and the shadow under the chin. 64 texels, mapped
    /// once over the neck.
    static func neck(skin: SceneColor, salt: UInt64) -> SceneTexture {
        let pores = ValueNoise(salt: salt)
        return SceneTexture(size: 64) { u, v in
            let s = (u + 0.5) / 64, t = (v + 0.5) / 64
            let round = 0.72 + 0.22 * max(0, 1 - (2 * s - 1) * (2 * s - 1)).squareRoot()
            let shadow = 0.62 + 0.38 * smoothstep(0, 0.45, t)
            return skin * (round * shadow * (0.97 + 0.06 * pores.sample(u, v, cell: 2)))
        }
    }

    /// A finger seen from the back, lying across its box: rounded across its height (dark at its
    /// edges), a knuckle's crease a third of the way along and a paler nail at its right end.
    static func finger(skin: SceneColor, salt: UInt64) -> SceneTexture {
        let pores = ValueNoise(salt: salt)
        return SceneTexture(size: 64) { u, v in
            let s = (u + 0.5) / 64, t = (v + 0.5) / 64
            let round = 0.5 + 0.5 * max(0, 1 - (2 * t - 1) * (2 * t - 1)).squareRoot()
            let crease = 1 - 0.3 * gaussian(s - 0.35, 0.025)
            let base = skin * (round * crease * (0.97 + 0.06 * pores.sample(u, v, cell: 2)))
            return SceneColor.mix(base, SceneColor(0.95, 0.8, 0.75) * round, 0.5 * smoothstep(0.78, 0.84, s))
        }
    }

    /// A ball: red with a white band off its centre and a white spot, shaded as a sphere lit
    /// from the upper left, with a highlight. 128 texels over the ball's bounding box.
    static func ball(salt: UInt64) -> SceneTexture {
        let grain = ValueNoise(salt: salt)
        let red = SceneColor(0.78, 0.12, 0.1), white = SceneColor(0.92, 0.9, 0.86)
        return SceneTexture(size: 128) { u, v in
            let x = (u + 0.5) / 64 - 1, y = (v + 0.5) / 64 - 1
            let r2 = min(1, x * x + y * y)
            let z = (1 - r2).squareRoot()
            // Panels: two bands of white where the sphere's surface point is near two great circles.
            let band = max(smoothstep(0.14, 0.08, abs(x * 0.8 + y * 0.6 - 0.5)), smoothstep(0.16, 0.1, hypot(x + 0.3, y - 0.35)))
            let light = 0.35 + 0.65 * max(0, -0.45 * x - 0.55 * y + 0.7 * z)
            let highlight = 0.5 * gaussian(hypot(x + 0.35, y + 0.4), 0.12)
            let base = SceneColor.mix(red, white, band) * (light * (0.97 + 0.06 * grain.sample(u, v, cell: 2)))
            return SceneColor.mix(base, SceneColor(1, 1, 1), highlight)
        }
    }

    /// A mug seen from the side: white glaze with a blue band, cylindrical shading, a darker rim
    /// and a handle's shadow on the right. 64 texels over the cup's box.
    static func cup(salt: UInt64) -> SceneTexture {
        let grain = ValueNoise(salt: salt)
        let glaze = SceneColor(0.9, 0.89, 0.85), blue = SceneColor(0.14, 0.3, 0.66)
        return SceneTexture(size: 64) { u, v in
            let s = (u + 0.5) / 64, t = (v + 0.5) / 64
            let round = 0.6 + 0.4 * max(0, 1 - (2 * s - 1.3) * (2 * s - 1.3)).squareRoot()
            var color = SceneColor.mix(glaze, blue, smoothstep(0.04, 0.0, abs(t - 0.45) - 0.1))
            color = color * (round * (0.97 + 0.06 * grain.sample(u, v, cell: 2)))
            color = color * (1 - 0.35 * smoothstep(0.08, 0.0, t))
            return color * (1 - 0.25 * smoothstep(0.85, 1.0, s))
        }
    }

    // MARK: Helpers

    /// Hermite step from 0 at `edge0` to 1 at `edge1` (either order).
    static func smoothstep(_ edge0: Double, _ edge1: Double, _ x: Double) -> Double {
        let t = min(1, max(0, (x - edge0) / (edge1 - edge0)))
        return t * t * (3 - 2 * t)
    }

    /// An unnormalised Gaussian bump: 1 at 0.
    static func gaussian(_ x: Double, _ sigma: Double) -> Double { exp(-x * x / (2 * sigma * sigma)) }
}
