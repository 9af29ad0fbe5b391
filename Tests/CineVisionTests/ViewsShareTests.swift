// ViewsShare: the share of a map sample's pixels the views give the nearer of two disparities,
// read eight pixels to a vector where the windows fit, one by one at the views' edges.
import CineMedia
import Testing

@testable import CineVision

@Suite struct ViewsShareTests {
    /// A textured left view and a right view that is the left shifted by 10 px on the left half
    /// and by 4 px on the right half (a near surface beside a far one), 4 px a map sample.
    private func views() -> (Image, Image) {
        let w = 160, h = 48
        let left = Image(width: w, height: h, format: .gray8), right = Image(width: w, height: h, format: .gray8)
        var seed: UInt32 = 11
        var texture = [UInt8](repeating: 0, count: w * h)
        for i in texture.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            texture[i] = UInt8(truncatingIfNeeded: seed >> 24)
        }
        for y in 0..<h {
            let l = left.plane(0).row(y, as: UInt8.self), r = right.plane(0).row(y, as: UInt8.self)
            for x in 0..<w { l[x] = texture[y * w + x] }
            // The right view at column x shows the left's x + disparity.
            for x in 0..<w {
                let d = x + 10 < 80 ? 10 : 4
                r[x] = texture[y * w + min(w - 1, x + d)]
            }
        }
        return (left, right)
    }

    /// Where the windows fit, the vectors give exactly what the one-by-one sums give, at whole
    /// and fractional disparities; at the views' edges both paths are the one-by-one one.
    @Test func theVectorsGiveWhatOneByOneGives() {
        let (left, right) = views()
        let w = 40, h = 12
        var compared = 0, byVectors = 0
        for y in 0..<h {
            for x in 0..<w {
                for (near, far) in [(Float(10), Float(4)), (10.5, 4.25), (7.75, 2)] {
                    let iw = 160, ih = 48
                    let x0 = x * iw / w, x1 = (x + 1) * iw / w, y0 = y * ih / h, y1 = (y + 1) * ih / h
                    let n = (near, Int(near.rounded(.down))), f = (far, Int(far.rounded(.down)))
                    let one = ViewsShare.oneByOne(left.plane(0), right.plane(0), x0: x0, x1: x1, y0: y0, y1: y1, near: n, far: f)
                    let got = ViewsShare.near(left.plane(0), right.plane(0), x: x, y: y, mapWidth: w, mapHeight: h,
                                              near: near, far: far, toImage: 1)
                    #expect(got == one, "sample (\(x), \(y)), near \(near), far \(far)")
                    compared += 1
                    if x0 - 2 - n.1 >= 0, x0 + 9 <= iw, y0 >= 1, y1 + 1 <= ih { byVectors += 1 }
                }
            }
        }
        #expect(byVectors > compared / 2 && byVectors < compared, "\(byVectors) of \(compared) samples by vectors")
    }

    /// On the near half the views give the near disparity nearly every pixel, on the far half
    /// nearly none.
    @Test func theSideEachSampleLiesOnWins() {
        let (left, right) = views()
        let nearSide = ViewsShare.near(left.plane(0), right.plane(0), x: 10, y: 6, mapWidth: 40, mapHeight: 12,
                                       near: 10, far: 4, toImage: 1)
        let farSide = ViewsShare.near(left.plane(0), right.plane(0), x: 28, y: 6, mapWidth: 40, mapHeight: 12,
                                      near: 10, far: 4, toImage: 1)
        #expect((nearSide ?? 0) > 0.9 && (farSide ?? 1) < 0.1, "near side \(String(describing: nearSide)), far side \(String(describing: farSide))")
    }
}
