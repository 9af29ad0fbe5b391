// OutOfViewFill: something nearer than the right camera can see at the frame's left edge takes
// the depth of its width; a wall strip a person near the edge hides keeps the wall's; a person's
// samples are left alone. What it brings a render: `CineBench depth`.
import CineMedia
import Testing

@testable import CineVision

@Suite struct OutOfViewFillTests {
    /// 320×192 views of a textured wall at disparity 5 and, from row 24 to row 96, a textured
    /// patch at disparity `near` over left-view columns `columns`; and the map (80×48, 4 pixels a
    /// sample) the matcher would give: the wall's 5 wherever the right view cannot see the patch,
    /// the patch's disparity where it can.
    /// The right camera exposes `brighter` levels more than the left.
    private func scene(columns: Range<Int>, near: Float, brighter: Int = 0) -> (left: Image, right: Image, map: [Float]) {
        let W = 320, H = 192, w = 80, h = 48, shift = Int(near)
        var seed: UInt32 = 11
        func noise() -> UInt8 { seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(30 + (seed >> 24) % 190) }
        let wall = (0..<(W * H)).map { _ in noise() }, patch = (0..<(W * H)).map { _ in noise() }
        func inPatch(_ x: Int, _ y: Int) -> Bool { (24..<96).contains(y) && columns.contains(x) }
        let left = Image(width: W, height: H, format: .gray8), right = Image(width: W, height: H, format: .gray8)
        for y in 0..<H {
            let l = left.plane(0).row(y, as: UInt8.self), r = right.plane(0).row(y, as: UInt8.self)
            for x in 0..<W {
                l[x] = inPatch(x, y) ? patch[y * W + x] : wall[y * W + x]
                r[x] = UInt8(min(255, Int(inPatch(x + shift, y) ? patch[y * W + x + shift] : wall[y * W + min(W - 1, x + 5)]) + brighter))
            }
        }
        var map = [Float](repeating: 5, count: w * h)
        for y in 6..<24 {
            for x in 0..<w where columns.contains(4 * x + 2) && 4 * x + 2 >= shift { map[y * w + x] = near }
        }
        return (left, right, map)
    }

    private func filled(_ s: (left: Image, right: Image, map: [Float]), skip: @escaping (Int) -> Bool = { _ in false }) -> ([Float], [Int]) {
        var d = s.map
        let written = OutOfViewFill().fill(&d, mapWidth: 80, mapHeight: 48, referenceWidth: 320,
                                           left: s.left.plane(0), right: s.right.plane(0), skip: skip)
        return (d, written)
    }

    /// A head cut by the frame's left edge, 30 pixels of it at a disparity of 40: no pixel of it
    /// is in the right view, and the matcher gave it the wall's 5. Its samples take the width of
    /// the run that matches nothing (near the head's own 40, and never the wall's); the wall
    /// beside it and above it keeps its 5 — also when the right camera exposes 11 levels brighter
    /// (a plain sum of differences would match nothing).
    @Test(arguments: [0, 11])
    func somethingNarrowerThanItsDisparityTakesTheDepthOfItsWidth(brighter: Int) {
        let (d, written) = filled(scene(columns: 0..<30, near: 40, brighter: brighter))
        #expect(!written.isEmpty)
        for y in 8..<22 {
            for x in 0..<7 { #expect(d[y * 80 + x] >= 24 && d[y * 80 + x] <= 40, "(\(x), \(y)): \(d[y * 80 + x])") }
            for x in 8..<20 { #expect(d[y * 80 + x] == 5, "(\(x), \(y)): \(d[y * 80 + x])") }
        }
        for y in [0, 2, 30, 40] {
            for x in 0..<20 { #expect(d[y * 80 + x] == 5, "(\(x), \(y)): \(d[y * 80 + x])") }
        }
    }

    /// One row of the head matches the wall by chance (its pixels are what the right camera sees
    /// of the wall five pixels before): its run is cut to nothing, and the rows above and below it
    /// give it their width.
    @Test func aRowThatMatchedByChanceTakesItsNeighboursWidth() {
        let s = scene(columns: 0..<30, near: 40)
        for y in 60..<65 {
            let l = s.left.plane(0).row(y, as: UInt8.self), r = s.right.plane(0).row(y, as: UInt8.self)
            for x in 5..<30 { l[x] = r[x - 5] }
        }
        let (d, _) = filled(s)
        for x in 0..<7 { #expect(d[15 * 80 + x] >= 24 && d[15 * 80 + x] <= 40, "(\(x), 15): \(d[15 * 80 + x])") }
        for x in 8..<20 { #expect(d[15 * 80 + x] == 5, "(\(x), 15): \(d[15 * 80 + x])") }
    }

    /// A person from column 16 at a disparity of 40 hides the wall between them and the frame's
    /// edge from the right camera: that strip matches nothing either, but the person right of it
    /// explains it, and it keeps the wall's depth.
    @Test(arguments: [0, 11])
    func aWallStripAPersonHidesKeepsTheWallsDepth(brighter: Int) {
        let s = scene(columns: 16..<100, near: 40, brighter: brighter)
        let (d, written) = filled(s)
        #expect(written.isEmpty)
        #expect(d == s.map)
    }

    /// Samples the person matte holds are the person refinement's: left as they are.
    @Test func aPersonsSamplesAreLeftAlone() {
        let s = scene(columns: 0..<30, near: 40)
        let (d, written) = filled(s, skip: { $0 % 80 < 4 })
        #expect(written.isEmpty)
        #expect(d == s.map)
    }

    /// Views smaller than twice the map, or a map of the wrong size: nothing is written.
    @Test func viewsTooSmallForTheMapChangeNothing() {
        let s = scene(columns: 0..<30, near: 40)
        var d = s.map
        let small = Image(width: 100, height: 60, format: .gray8)
        #expect(OutOfViewFill().fill(&d, mapWidth: 80, mapHeight: 48, referenceWidth: 320, left: small.plane(0), right: small.plane(0),
                                     skip: { _ in false }).isEmpty)
        #expect(OutOfViewFill().fill(&d, mapWidth: 81, mapHeight: 48, referenceWidth: 320, left: s.left.plane(0), right: s.right.plane(0),
                                     skip: { _ in false }).isEmpty)
        #expect(d == s.map)
    }
}
