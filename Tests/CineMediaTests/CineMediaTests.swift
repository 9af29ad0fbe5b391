// The media types every node passes around: images and their crops share pixels, copies do not;
// the pool reuses a buffer once no image holds it; timestamps of frames are exact; a disparity
// map's lookups skip invalid samples; a PFM file round-trips bit for bit and a bad one is named.
import CineMedia
import Foundation
import Testing

@Suite struct ImageTests {
    /// An I420 image whose every sample is a function of its plane and position.
    private func patterned(_ w: Int, _ h: Int) -> Image {
        let image = Image(width: w, height: h, format: .i420)
        for p in 0..<3 {
            let plane = image.plane(p)
            for y in 0..<plane.height {
                let row = plane.row(y, as: UInt8.self)
                for x in 0..<plane.width { row[x] = UInt8((p * 71 + y * 13 + x * 7) % 256) }
            }
        }
        return image
    }

    @Test func aCropSharesItsParentsPixelsAndACopyDoesNot() {
        let image = patterned(64, 48)
        let crop = image.cropped(x: 10, y: 6, width: 20, height: 16)
        #expect(crop.width == 20 && crop.height == 16 && !crop.isContiguous)
        // Every plane of the crop starts where the parent's rectangle does (chroma at half).
        #expect(crop.plane(0).row(0, as: UInt8.self)[0] == image.plane(0).row(6, as: UInt8.self)[10])
        #expect(crop.plane(2).row(1, as: UInt8.self)[2] == image.plane(2).row(4, as: UInt8.self)[7])
        crop.plane(0).row(3, as: UInt8.self)[4] = 250
        #expect(image.plane(0).row(9, as: UInt8.self)[14] == 250)
        let copy = crop.copy()
        #expect(copy.isContiguous)
        for p in 0..<3 {
            for y in 0..<copy.plane(p).height {
                #expect(memcmp(copy.plane(p).row(y), crop.plane(p).row(y), copy.plane(p).width) == 0)
            }
        }
        copy.plane(0).row(3, as: UInt8.self)[4] = 1
        #expect(image.plane(0).row(9, as: UInt8.self)[14] == 250)
    }

    @Test func thePoolReusesABufferOnceNoImageHoldsIt() {
        let pool = ImagePool()
        var held: Image? = pool.makeImage(width: 32, height: 32, format: .gray8)
        let second = pool.makeImage(width: 32, height: 32, format: .gray8)
        #expect(pool.allocationCount == 2)
        #expect(held!.buffer !== second.buffer)
        held = nil
        for _ in 0..<10 { _ = pool.makeImage(width: 16, height: 16, format: .gray8) }
        #expect(pool.allocationCount == 2)  // the freed buffer, large enough, served them all
        #expect(held == nil && second.width == 32)
    }
}

@Suite struct TimestampTests {
    @Test func framesAreStampedExactlyAndPrintInSeconds() {
        #expect(Timestamp(frame: 30, fps: 30) == Timestamp(seconds: 1))
        #expect(Timestamp(frame: 30_000, fps: 30_000.0 / 1001).nanoseconds == 1_001_000_000_000)
        #expect(Timestamp(frame: 3, fps: 30).nanoseconds == 100_000_000)
        #expect((Timestamp(seconds: 2.5) - Timestamp(seconds: 0.25)).seconds == 2.25)
        #expect(Timestamp(seconds: 1.234).description == "1.234s")
        #expect(Timestamp(seconds: -0.05).description == "-0.050s")
        #expect(Timestamp(seconds: 1) < Timestamp(seconds: 1.001))
    }
}

@Suite struct DisparityMapTests {
    @Test func lookupsSkipInvalidSamples() {
        let values = Image(width: 4, height: 2, format: .float32)
        let samples: [Float] = [1, .infinity, 7, 3, .nan, 2, -.infinity, 5]
        for y in 0..<2 { for x in 0..<4 { values.plane(0).row(y, as: Float.self)[x] = samples[y * 4 + x] } }
        let map = DisparityMap(values: values, referenceWidth: 16, referenceHeight: 8)
        #expect(map.nearest == 7)
        #expect(map.disparity(atNormalized: 0.6, 0.2) == 7)
        #expect(map.disparity(atNormalized: 0.3, 0.2) == nil)  // +inf
        #expect(map.disparity(atNormalized: 0.1, 0.9) == nil)  // NaN
        #expect(map.disparity(atNormalized: 5, 5) == 5)  // clamped to the last sample
        let empty = Image(width: 2, height: 1, format: .float32)
        empty.plane(0).row(0, as: Float.self)[0] = .infinity
        empty.plane(0).row(0, as: Float.self)[1] = .nan
        #expect(DisparityMap(values: empty, referenceWidth: 2, referenceHeight: 1).nearest == nil)
    }
}

@Suite struct PortableFloatMapTests {
    @Test func aMapRoundTripsBitForBitAndABadFileIsNamed() throws {
        let values = Image(width: 5, height: 3, format: .float32)
        for y in 0..<3 { for x in 0..<5 { values.plane(0).row(y, as: Float.self)[x] = Float(y * 10 + x) + 0.25 } }
        values.plane(0).row(2, as: Float.self)[4] = .infinity
        let data = PortableFloatMap(values: values).encoded()
        #expect(String(decoding: data.prefix(3), as: UTF8.self) == "Pf\n")
        let back = try PortableFloatMap(data: data)
        for y in 0..<3 {
            #expect(memcmp(back.values.plane(0).row(y), values.plane(0).row(y), 20) == 0, "row \(y)")
        }
        // Rows are stored bottom to top: the file's first sample is the picture's last row's first.
        let samples = data.suffix(5 * 3 * 4)
        let first = samples.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: Float.self) }
        #expect(first == 20.25)
        for (bytes, words) in [("P6\n1 1\n255\n", "not a PFM"), ("Pf\n4 4\n-1\n", "truncated"), ("PF\n1 1\n-1\n", "three-channel")] {
            #expect {
                try PortableFloatMap(data: Data(bytes.utf8), path: "bad.pfm")
            } throws: { error in
                "\(error)".contains("bad.pfm") && "\(error)".contains(words)
            }
        }
    }

    @Test func writtenFilesHoldTheEncodedBytesAndAnUnwritablePathIsNamed() throws {
        // A crop (its stride wider than its rows): the file holds only the picture's samples.
        let whole = Image(width: 720, height: 4, format: .float32)
        for y in 0..<4 { for x in 0..<720 { whole.plane(0).row(y, as: Float.self)[x] = Float(y * 1000 + x) } }
        let values = whole.cropped(x: 10, y: 1, width: 700, height: 3)
        #expect(values.plane(0).stride > 700 * 4)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-pfm-\(getpid()).pfm").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Over a longer file: the write truncates it.
        try Data(count: 100_000).write(to: URL(fileURLWithPath: path))
        let map = PortableFloatMap(values: values)
        try map.write(to: path)
        #expect(FileManager.default.contents(atPath: path) == map.encoded())
        let back = try PortableFloatMap(contentsOf: path)
        #expect(back.values.width == 700 && back.values.plane(0).row(2, as: Float.self)[699] == 3709)
        #expect(back.values.plane(0).row(0, as: Float.self)[0] == 1010)
        #expect {
            try map.write(to: "/nonexistent-dir/d.pfm")
        } throws: { error in
            "\(error)".contains("/nonexistent-dir/d.pfm") && "\(error)".contains("No such file")
        }
    }
}
