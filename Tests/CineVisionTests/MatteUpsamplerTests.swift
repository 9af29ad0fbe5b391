// The guided upsampler against the truth: a subject with a wavy outline (hair), its matte made
// at a quarter of the frame's size and softened as a model's is, brought back to the frame.
import CineTestSupport
import CineMedia
import Foundation
import Testing

@testable import CineVision

@Suite struct MatteUpsamplerTests {
    /// A 640×360 frame: a bright subject whose outline waves by ±8 px (12 waves) on a dark
    /// ground, and its true mask.
    private func scene() -> (frame: Image, truth: [Bool]) {
        let w = 640, h = 360
        let frame = Image(width: w, height: h, format: .gray8)
        var truth = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            let row = frame.plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                let dx = Double(x) + 0.5 - 320, dy = Double(y) + 0.5 - 180
                let inside = (dx * dx + dy * dy).squareRoot() < 110 + 8 * sin(12 * atan2(dy, dx))
                truth[y * w + x] = inside
                row[x] = inside ? 200 : 50
            }
        }
        return (frame, truth)
    }

    /// The truth at 160×90, area-averaged, then blurred by a 3×3 box (a model's soft edge).
    private func coarseMatte(_ truth: [Bool]) -> Image {
        let mw = 160, mh = 90
        var area = [Double](repeating: 0, count: mw * mh)
        for y in 0..<360 { for x in 0..<640 where truth[y * 640 + x] { area[(y / 4) * mw + x / 4] += 1.0 / 16 } }
        let matte = Image(width: mw, height: mh, format: .gray8)
        for y in 0..<mh {
            let row = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<mw {
                var s = 0.0, c = 0.0
                for j in max(0, y - 1)...min(mh - 1, y + 1) { for i in max(0, x - 1)...min(mw - 1, x + 1) { s += area[j * mw + i]; c += 1 } }
                row[x] = UInt8((s / c * 255).rounded())
            }
        }
        return matte
    }

    /// Mean |matte − truth| (0…1) over the pixels within 12 px of the outline.
    private func edgeError(_ matte: Image, _ truth: [Bool]) -> Double {
        let d = MatteEdgeQuality.distanceToEdge(truth, width: 640, height: 360)
        var sum = 0.0, count = 0
        for y in 0..<360 {
            let row = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<640 where d[y * 640 + x] <= 12 {
                sum += abs(Double(row[x]) / 255 - (truth[y * 640 + x] ? 1 : 0))
                count += 1
            }
        }
        return sum / Double(count)
    }

    @Test func theOutlineFollowsTheFramesEdgesNotTheModelsGrid() {
        let (frame, truth) = scene()
        let coarse = coarseMatte(truth)
        let guided = MatteUpsampler().upsample(coarse, guide: frame)
        #expect(guided.width == 640 && guided.height == 360 && guided.format == .gray8)
        // Bilinear: the same matte with no guide (epsilon so large that a = 0, b = the mean).
        let plain = MatteUpsampler(radius: 0, epsilon: 1e9).upsample(coarse, guide: frame)
        let e = edgeError(guided, truth), e0 = edgeError(plain, truth)
        #expect(e < 0.8 * e0, "guided \(e), bilinear \(e0)")
        // Far from the outline both are whole: person inside, room outside.
        #expect(guided.plane(0).row(180, as: UInt8.self)[320] > 250 && guided.plane(0).row(10, as: UInt8.self)[10] < 5)
    }

    @Test func anI420GuideReadsItsLuma() {
        let (frame, truth) = scene()
        let i420 = Image(width: 640, height: 360, format: .i420)
        for y in 0..<360 { memcpy(i420.plane(0).row(y), frame.plane(0).row(y), 640) }
        i420.plane(1).fill(byte: 128)
        i420.plane(2).fill(byte: 128)
        let coarse = coarseMatte(truth)
        let a = MatteUpsampler().upsample(coarse, guide: frame), b = MatteUpsampler().upsample(coarse, guide: i420)
        #expect((0..<360).allSatisfy { y in memcmp(a.plane(0).row(y), b.plane(0).row(y), 640) == 0 })
    }
}
