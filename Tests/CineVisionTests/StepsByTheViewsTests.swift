// StepsByTheViews: a cabinet's bottom and right edges the matcher fattened are given back to the
// wall by the views, a sample the edge crosses becomes the blend; left of the cabinet, where the
// right camera does not see the wall, and wherever the caller says so, nothing moves.
import CineMedia
import Testing

@testable import CineVision

@Suite struct StepsByTheViewsTests {
    /// 320×192 views of a textured box (columns 100..<180, rows 50..<110) at disparity 20 in front
    /// of a textured wall at 5.
    private func views() -> (left: Image, right: Image) {
        let W = 320, H = 192
        var seed: UInt32 = 7
        func noise() -> UInt8 { seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(30 + (seed >> 24) % 190) }
        var wall = [UInt8](repeating: 0, count: W * H), box = wall
        for i in 0..<(W * H) { wall[i] = noise(); box[i] = noise() }
        func inBox(_ x: Int, _ y: Int) -> Bool { (100..<180).contains(x) && (50..<110).contains(y) }
        let left = Image(width: W, height: H, format: .gray8), right = Image(width: W, height: H, format: .gray8)
        for y in 0..<H {
            let l = left.plane(0).row(y, as: UInt8.self), r = right.plane(0).row(y, as: UInt8.self)
            for x in 0..<W {
                l[x] = inBox(x, y) ? box[y * W + x] : wall[y * W + x]
                r[x] = x + 20 < W && inBox(x + 20, y) ? box[y * W + x + 20] : wall[y * W + min(W - 1, x + 5)]
            }
        }
        return (left, right)
    }

    /// The 80×48 map the matcher would give: the box at 20, the wall at 5, the box fattened by a
    /// sample below (row 28), right (column 45) and left (column 24); row 27, which the box's
    /// bottom edge halves, wholly the box's.
    private func fattened() -> [Float] {
        var d = [Float](repeating: 5, count: 80 * 48)
        for y in 12...28 { for x in 24...45 { d[y * 80 + x] = 20 } }
        return d
    }

    @Test func fattenedEdgesGoBackToTheWallAndAHalvedSampleIsBlended() {
        let (left, right) = views()
        var d = fattened()
        let changed = StepsByTheViews().blend(&d, mapWidth: 80, mapHeight: 48, referenceWidth: 320,
                                              left: left.plane(0), right: right.plane(0), skip: [Bool](repeating: false, count: 80 * 48))
        #expect(changed > 0)
        for x in 30...40 {
            #expect(d[28 * 80 + x] < 7, "below the box, column \(x): \(d[28 * 80 + x])")
            #expect(abs(d[27 * 80 + x] - 12.5) < 4, "the sample the edge halves, column \(x): \(d[27 * 80 + x])")
            #expect(d[20 * 80 + x] == 20, "inside the box, column \(x)")
        }
        for y in 16...24 {
            #expect(d[y * 80 + 45] < 7, "right of the box, row \(y): \(d[y * 80 + 45])")
            #expect(d[y * 80 + 44] > 18, "the box's last column, row \(y): \(d[y * 80 + 44])")
            // Left of the box the wall is hidden from the right camera: no test, no change.
            #expect(d[y * 80 + 24] == 20, "left of the box, row \(y): \(d[y * 80 + 24])")
        }
        #expect(d.allSatisfy { $0.isFinite && $0 >= 5 && $0 <= 20 })
    }

    /// Where the picture stands still the last call's shares are reused and give the same map;
    /// where it moved, or the step's depths moved by more than the tolerance, the views are asked
    /// again.
    @Test func aStillPictureReusesLastFramesSharesAndAMovedOneIsTestedAgain() {
        let (left, right) = views()
        let skip = [Bool](repeating: false, count: 80 * 48)
        var memory = StepsByTheViews.Memory()
        var first = fattened()
        StepsByTheViews().blend(&first, mapWidth: 80, mapHeight: 48, referenceWidth: 320, left: left.plane(0), right: right.plane(0),
                                skip: skip, still: [UInt8](repeating: 1, count: 80 * 48), memory: &memory)
        #expect(memory.reused == 0)
        var again = fattened()
        StepsByTheViews().blend(&again, mapWidth: 80, mapHeight: 48, referenceWidth: 320, left: left.plane(0), right: right.plane(0),
                                skip: skip, still: [UInt8](repeating: 1, count: 80 * 48), memory: &memory)
        #expect(memory.reused > 60 && again == first, "\(memory.reused) reused")
        // The picture moved: every sample is tested, and the views still say the same.
        var moved = fattened()
        StepsByTheViews().blend(&moved, mapWidth: 80, mapHeight: 48, referenceWidth: 320, left: left.plane(0), right: right.plane(0),
                                skip: skip, still: [UInt8](repeating: 0, count: 80 * 48), memory: &memory)
        #expect(memory.reused == 0 && moved == first)
        // The box came 3 px nearer: its shares are found again, for the new depths.
        var nearer = fattened().map { $0 == 20 ? 23 : $0 }
        StepsByTheViews().blend(&nearer, mapWidth: 80, mapHeight: 48, referenceWidth: 320, left: left.plane(0), right: right.plane(0),
                                skip: skip, still: [UInt8](repeating: 1, count: 80 * 48), memory: &memory)
        #expect(memory.reused == 0)
    }

    @Test func skippedSamplesAndMapsWithoutViewsAreLeftAlone() {
        let (left, right) = views()
        var d = fattened()
        let all = [Bool](repeating: true, count: 80 * 48)
        #expect(StepsByTheViews().blend(&d, mapWidth: 80, mapHeight: 48, referenceWidth: 320,
                                         left: left.plane(0), right: right.plane(0), skip: all) == 0)
        #expect(d == fattened())
        // Views of the map's own size have one pixel a sample: nothing to share.
        let small = Image(width: 80, height: 48, format: .gray8)
        #expect(StepsByTheViews().blend(&d, mapWidth: 80, mapHeight: 48, referenceWidth: 320,
                                         left: small.plane(0), right: small.plane(0), skip: all.map { !$0 }) == 0)
        #expect(d == fattened())
    }
}
