// The census transform's vector path (interior, border rows with clamped rows, border columns
// through a clamped copy) against the scalar definition, on every pixel of noise images of
// awkward sizes.
@testable import CineVision
import Testing

@Suite struct CensusTransformTests {
    @Test(arguments: [(24, 7), (25, 9), (40, 3), (57, 31), (320, 180)])
    func vectorPathEqualsTheClampedDefinition(size: (width: Int, height: Int)) {
        let (w, h) = size
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(w * 1000 + h)
        var image = [UInt8](repeating: 0, count: w * h)
        for i in image.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Noise with flat patches, so ties (equal to the centre: not darker) occur too.
            image[i] = i % 7 < 2 ? 128 : UInt8(truncatingIfNeeded: seed >> 56)
        }
        var fast = [UInt64](repeating: 0, count: w * h)
        image.withUnsafeBufferPointer { img in
            fast.withUnsafeMutableBufferPointer { out in
                CensusTransform.transform(img.baseAddress!, width: w, height: h, rows: 0..<h, into: out.baseAddress!)
            }
            CensusTransform.neighbours.withUnsafeBufferPointer { nb in
                var wrong = 0
                for y in 0..<h {
                    for x in 0..<w where fast[y * w + x] != CensusTransform.clampedSignature(img.baseAddress!, w, h, x, y, nb) {
                        wrong += 1
                    }
                }
                #expect(wrong == 0, "\(wrong) of \(w * h) signatures differ at \(w)x\(h)")
            }
        }
    }
}
