// The resize node: sizes, formats and aspect.
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineViewfinder
import CineVision
import Foundation
import Testing

@Suite struct ResizeTests {
    @Test func areaAverageHalvesAFrameExactly() throws {
        let image = Image(width: 8, height: 4, format: .i420)
        for y in 0..<4 { for x in 0..<8 { image.plane(0).row(y, as: UInt8.self)[x] = UInt8(x * 30 + y) } }
        for p in 1...2 { for y in 0..<2 { for x in 0..<4 { image.plane(p).row(y, as: UInt8.self)[x] = UInt8(100 + x * 10) } } }
        var h = try NodeHarness(ResizeNode.self, parameters: ["size": "4x2"])
        let out = try #require(try h.process([\.$video: image])[\.$resized])
        #expect(out.width == 4 && out.height == 2 && out.format == .i420)
        // Each output pixel is the rounded mean of its 2×2 block (luma) or 2×1 block (chroma).
        for y in 0..<2 {
            for x in 0..<4 {
                let block = [(2 * x, 2 * y), (2 * x + 1, 2 * y), (2 * x, 2 * y + 1), (2 * x + 1, 2 * y + 1)]
                    .map { Int(image.plane(0).row($0.1, as: UInt8.self)[$0.0]) }
                #expect(Int(out.plane(0).row(y, as: UInt8.self)[x]) == (block.reduce(0, +) + 2) / 4, "(\(x),\(y))")
            }
        }
        #expect(out.plane(1).width == 2 && out.plane(1).row(0, as: UInt8.self)[0] == 105)
        // The vectorised halving (16 outputs at a time) agrees with the 2×2 mean everywhere.
        let noise = Image(width: 100, height: 40, format: .gray8)
        var seed: UInt32 = 7
        for y in 0..<40 { for x in 0..<100 { seed = seed &* 1_103_515_245 &+ 12345; noise.plane(0).row(y, as: UInt8.self)[x] = UInt8(truncatingIfNeeded: seed >> 16) } }
        let half = ImageResizer().resize(noise, width: 50, height: 20)
        for y in 0..<20 {
            for x in 0..<50 {
                let p = noise.plane(0)
                let sum = Int(p.row(2 * y, as: UInt8.self)[2 * x]) + Int(p.row(2 * y, as: UInt8.self)[2 * x + 1])
                    + Int(p.row(2 * y + 1, as: UInt8.self)[2 * x]) + Int(p.row(2 * y + 1, as: UInt8.self)[2 * x + 1])
                #expect(Int(half.plane(0).row(y, as: UInt8.self)[x]) == (sum + 2) / 4, "(\(x),\(y))")
            }
        }
        // Width keeps the aspect ratio; odd I420 sizes are rounded down to even.
        let wide = Image(width: 1920, height: 1080, format: .i420)
        var w = try NodeHarness(ResizeNode.self, parameters: ["width": "961"])
        let scaled = try #require(try w.process([\.$video: wide])[\.$resized])
        #expect(scaled.width == 960 && scaled.height == 540)
    }
}
