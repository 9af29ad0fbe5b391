// RemapTable tests: the vectorised warp gives, byte for byte, the bilinear value each output
// pixel's tap defines — eight pixels at a time and in a row's tail, inside the source, at its
// last row and column, and outside it.
@testable import CineVision
import CineMedia
import Testing

@Suite struct RemapTableTests {
    /// The value of one tap, computed the plain way from the source's four samples.
    private func expected(_ src: Plane, x: Int, y: Int, fx: Int, fy: Int) -> UInt8 {
        let a = Int(src.row(y, as: UInt8.self)[x]), b = Int(src.row(y, as: UInt8.self)[x + 1])
        let c = Int(src.row(y + 1, as: UInt8.self)[x]), d = Int(src.row(y + 1, as: UInt8.self)[x + 1])
        let top = a * 128 + (b - a) * fx, bottom = c * 128 + (d - c) * fx
        return UInt8((top * 128 + (bottom - top) * fy + 8192) >> 14)
    }

    @Test(arguments: [37, 64, 101])
    func everyPixelIsItsTapsBilinearValue(outputWidth: Int) {
        let source = Image(width: 83, height: 47, format: .gray8)
        let plane = source.plane(0)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        for y in 0..<plane.height { for x in 0..<plane.width { plane.row(y, as: UInt8.self)[x] = UInt8(next() & 0xFF) } }
        // A rotation-like warp that leaves the source on some pixels, and reaches its far corner.
        let height = 29
        let table = RemapTable(width: outputWidth, height: height, sourceWidth: 83, sourceHeight: 47) { u, v in
            if (u + 3 * v) % 11 == 0 { return nil }
            if u == outputWidth - 1 && v == height - 1 { return SIMD2(82, 46) }
            let x = Float(u) * 80 / Float(outputWidth) + Float(v) * 0.07, y = Float(v) * 1.5 + Float(u % 7) * 0.13
            return SIMD2(min(x, 82), min(y, 46))
        }
        let out = Image(width: outputWidth, height: height, format: .gray8)
        table.apply(plane, into: out.plane(0), outside: 77)
        var wrong = 0, outside = 0
        for v in 0..<height {
            for u in 0..<outputWidth {
                let i = v * outputWidth + u
                let got = out.plane(0).row(v, as: UInt8.self)[u]
                if table.xs[i] < 0 {
                    outside += 1
                    if got != 77 { wrong += 1 }
                } else if got != expected(plane, x: Int(table.xs[i]), y: Int(table.ys[i]), fx: Int(table.fxs[i]), fy: Int(table.fys[i])) {
                    wrong += 1
                }
            }
        }
        #expect(outside > 0)
        #expect(wrong == 0)
        // The far corner: stepped back one sample, the far one weighed fully.
        let last = height * outputWidth - 1
        #expect(table.xs[last] == 81 && table.ys[last] == 45 && table.fxs[last] == 128 && table.fys[last] == 128)
        #expect(out.plane(0).row(height - 1, as: UInt8.self)[outputWidth - 1] == plane.row(46, as: UInt8.self)[82])
    }
}
