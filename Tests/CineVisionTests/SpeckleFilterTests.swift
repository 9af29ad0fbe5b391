// The run-based speckle filter against a plain flood fill (the definition: 4-connected regions
// of disparities within `range` of their neighbour, invalidated when smaller than the window),
// on maps that stress the merging of runs: noise, staircases, combs and spirals whose arms
// meet rows later.
@testable import CineVision
import Testing

@Suite struct SpeckleFilterTests {
    /// The definition: a flood fill from every unlabelled valid pixel.
    static func floodFill(_ d: inout [Float], _ conf: inout [UInt8], width w: Int, height h: Int, maxSize: Int, range: Float) {
        var labelled = [Bool](repeating: false, count: w * h)
        for seed in 0..<(w * h) where !labelled[seed] && d[seed] >= 0 {
            var region = [seed], head = 0
            labelled[seed] = true
            while head < region.count {
                let p = region[head], x = p % w, y = p / w
                head += 1
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && nx < w && ny >= 0 && ny < h {
                    let q = ny * w + nx
                    if !labelled[q] && d[q] >= 0 && abs(d[q] - d[p]) <= range {
                        labelled[q] = true
                        region.append(q)
                    }
                }
            }
            if region.count < maxSize { for q in region { d[q] = -1; conf[q] = 0 } }
        }
    }

    /// A test map of `kind`: 0 noise with holes, 1 a staircase with noisy steps, 2 a comb
    /// (vertical teeth joined only at the bottom), 3 a spiral of one disparity on another.
    static func map(kind: Int, width w: Int, height h: Int, seed: UInt64) -> [Float] {
        var s = seed
        func random() -> Float {
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(s >> 40) / Float(1 << 24)
        }
        var d = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let r = random()
                var v: Float
                switch kind {
                case 0: v = r < 0.15 ? -1 : random() * 6
                case 1: v = Float((x / 7 + y / 5) % 5) * 1.6 + (r < 0.1 ? 3 * random() : 0.3 * random())
                case 2: v = (x % 4 == 0 || y == h - 1) ? 10 : (r < 0.3 ? 2 + random() : 20)
                default:
                    // Square spiral: ring index by Chebyshev distance from the centre, alternate arms.
                    let dx = abs(x - w / 2), dy = abs(y - h / 2), ring = max(dx, dy)
                    v = (ring % 2 == 0 && !(x > w / 2 && dy == 0 && ring % 4 == 0)) ? 8 : 30 + random() * 4
                }
                if r > 0.97 { v = -1 }
                d[y * w + x] = v
            }
        }
        return d
    }

    @Test(arguments: [(1, 1), (5, 1), (1, 9), (16, 8), (37, 23), (64, 64), (320, 180)])
    func equalsTheFloodFillDefinition(size: (width: Int, height: Int)) {
        let (w, h) = size
        let filter = SpeckleFilter(width: w, height: h)
        var removedSomewhere = false, keptSomewhere = false
        for kind in 0..<4 {
            for (maxSize, range) in [(4, Float(1)), (40, 1), (100, 2), (1000, 0.5)] {
                var expected = Self.map(kind: kind, width: w, height: h, seed: UInt64(w * 31 + h * 7 + kind))
                var expectedConfidence = [UInt8](repeating: 9, count: w * h)
                var actual = expected, actualConfidence = expectedConfidence
                let before = expected.filter { $0 >= 0 }.count
                Self.floodFill(&expected, &expectedConfidence, width: w, height: h, maxSize: maxSize, range: range)
                actual.withUnsafeMutableBufferPointer { dp in
                    actualConfidence.withUnsafeMutableBufferPointer { cp in
                        filter.apply(dp.baseAddress!, confidence: cp.baseAddress!, maxSize: maxSize, range: range)
                    }
                }
                #expect(actual == expected, "kind \(kind), window \(maxSize), range \(range)")
                #expect(actualConfidence == expectedConfidence, "kind \(kind), window \(maxSize), range \(range)")
                let after = expected.filter { $0 >= 0 }.count
                if after < before { removedSomewhere = true }
                if after > 0 { keptSomewhere = true }
            }
        }
        // The maps exercise both outcomes (a filter that does nothing, or clears everything, fails).
        if w * h >= 64 {
            #expect(removedSomewhere && keptSomewhere)
        }
    }

    @Test func aSpiralIsOneRegionWhenItsArmsJoinLater() {
        // A U shape: two arms 12 pixels apart that join only in the last row. Each arm alone
        // is smaller than the window, the U is not — so the runs of the first rows must be
        // merged through the bottom row.
        let w = 20, h = 10
        var d = [Float](repeating: -1, count: w * h)
        for y in 0..<h { d[y * w + 2] = 5; d[y * w + 14] = 5 }
        for x in 2...14 { d[(h - 1) * w + x] = 5 }
        var conf = [UInt8](repeating: 7, count: w * h)
        let filter = SpeckleFilter(width: w, height: h)
        d.withUnsafeMutableBufferPointer { dp in
            conf.withUnsafeMutableBufferPointer { cp in
                filter.apply(dp.baseAddress!, confidence: cp.baseAddress!, maxSize: 25, range: 1)
            }
        }
        #expect(d.filter { $0 == 5 }.count == 2 * h + 11)
        var small = d.map { $0 == 5 ? Float(5) : -1 }
        var smallConf = conf
        small.withUnsafeMutableBufferPointer { dp in
            smallConf.withUnsafeMutableBufferPointer { cp in
                filter.apply(dp.baseAddress!, confidence: cp.baseAddress!, maxSize: 2 * h + 12, range: 1)
            }
        }
        #expect(small.allSatisfy { $0 == -1 } && smallConf.allSatisfy { $0 == 0 || $0 == 7 })
        #expect(smallConf.filter { $0 == 0 }.count == 2 * h + 11)
    }
}
