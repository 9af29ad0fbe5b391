// JPEGEncoderTests: the preview encoder's files decode with GStreamer's jpegdec to the pixels
// that went in (within JPEG's error), at the scaled size, for I420, NV12 and RGBA input.
import CineGStreamer
import CineMedia
import CineTestSupport
import Foundation
import Testing
@testable import CineViewfinder

@Suite struct JPEGEncoderTests {
    /// A frame with smooth gradients, a sharp square and coloured chroma, in I420.
    static func testImage(width: Int, height: Int) -> Image {
        let image = Image(width: width, height: height, format: .i420)
        let y = image.plane(0), u = image.plane(1), v = image.plane(2)
        for row in 0..<height {
            let p = y.row(row, as: UInt8.self)
            for x in 0..<width {
                let square = x > width / 3 && x < width / 2 && row > height / 3 && row < height * 2 / 3
                p[x] = square ? 235 : UInt8(16 + (x * 200) / width)
            }
        }
        for row in 0..<(height / 2) {
            let pu = u.row(row, as: UInt8.self), pv = v.row(row, as: UInt8.self)
            for x in 0..<(width / 2) {
                pu[x] = UInt8(64 + (row * 128) / (height / 2))
                pv[x] = UInt8(192 - (x * 128) / (width / 2))
            }
        }
        return image
    }

    /// Decodes JPEG bytes with GStreamer into I420.
    static func decode(_ bytes: [UInt8]) throws -> Image {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cg-jpeg-\(UUID().uuidString).jpg")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let pipeline = try Pipeline(
            "filesrc location=\"\(file.path)\" ! jpegdec ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false"
        )
        let reader = try AppSinkReader(pipeline: pipeline)
        try pipeline.play()
        defer { pipeline.stop() }
        guard case .frame(let image, _) = try reader.next(timeout: 10) else {
            throw TestFailure("jpegdec gave no frame")
        }
        return image
    }

    /// Mean absolute difference of plane `index` of two same-sized images.
    static func meanError(_ a: Image, _ b: Image, plane index: Int) -> Double {
        let pa = a.plane(index), pb = b.plane(index)
        var sum = 0
        for row in 0..<pa.height {
            let ra = pa.row(row, as: UInt8.self), rb = pb.row(row, as: UInt8.self)
            for x in 0..<pa.width { sum += abs(Int(ra[x]) - Int(rb[x])) }
        }
        return Double(sum) / Double(pa.width * pa.height)
    }

    @Test func anI420FrameDecodesToTheSamePixels() throws {
        let image = Self.testImage(width: 200, height: 120)  // not a multiple of 16: padding is exercised
        let bytes = try #require(JPEGEncoder(quality: 90).encode(image))
        #expect(bytes.prefix(2) == [0xFF, 0xD8] && bytes.suffix(2) == [0xFF, 0xD9])
        let decoded = try Self.decode(bytes)
        #expect(decoded.width == 200 && decoded.height == 120)
        #expect(Self.meanError(image, decoded, plane: 0) < 2.5)
        #expect(Self.meanError(image, decoded, plane: 1) < 2.5)
        #expect(Self.meanError(image, decoded, plane: 2) < 2.5)
    }

    @Test func framesAreScaledDownToTheWidthWithTheAspectKept() throws {
        let image = Self.testImage(width: 640, height: 360)
        let bytes = try #require(JPEGEncoder(quality: 75).encode(image, maxWidth: 320))
        let decoded = try Self.decode(bytes)
        #expect(decoded.width == 320 && decoded.height == 180)
        let reference = Self.testImage(width: 320, height: 180)
        #expect(Self.meanError(reference, decoded, plane: 0) < 6)
        // A smaller quality gives a smaller file.
        let small = try #require(JPEGEncoder(quality: 20).encode(image, maxWidth: 320))
        #expect(small.count < bytes.count)
    }

    @Test func nv12AndRGBAFramesEncodeToo() throws {
        let i420 = Self.testImage(width: 96, height: 64)
        let nv12 = Image(width: 96, height: 64, format: .nv12)
        for row in 0..<64 { memcpy(nv12.plane(0).row(row), i420.plane(0).row(row), 96) }
        for row in 0..<32 {
            let uv = nv12.plane(1).row(row, as: UInt8.self)
            let u = i420.plane(1).row(row, as: UInt8.self), v = i420.plane(2).row(row, as: UInt8.self)
            for x in 0..<48 {
                uv[2 * x] = u[x]
                uv[2 * x + 1] = v[x]
            }
        }
        let decoded = try Self.decode(try #require(JPEGEncoder(quality: 90).encode(nv12)))
        #expect(Self.meanError(i420, decoded, plane: 1) < 2.5 && Self.meanError(i420, decoded, plane: 2) < 2.5)

        let rgba = Image(width: 64, height: 64, format: .rgba8)
        for row in 0..<64 {
            let p = rgba.plane(0).row(row, as: UInt8.self)
            for x in 0..<64 {
                p[4 * x] = 200
                p[4 * x + 1] = 40
                p[4 * x + 2] = 40
                p[4 * x + 3] = 255
            }
        }
        let red = try Self.decode(try #require(JPEGEncoder(quality: 90).encode(rgba)))
        // Full-range BT.601 red (200, 40, 40): Y ≈ 87, Cr well above 128.
        #expect(abs(Int(red.plane(0).row(10, as: UInt8.self)[10]) - 87) < 6)
        #expect(red.plane(2).row(10, as: UInt8.self)[10] > 170)
        #expect(JPEGEncoder().encode(Image(width: 64, height: 64, format: .float32)) == nil)
    }
}

@Suite struct ViewerLatencyTests {
    @Test func percentilesAreNearestRankOverTheKeptSamples() {
        let l = ViewerLatency(capacity: 100)
        #expect(l.percentile(50) == nil)
        for ms in 1...100 { l.add(Double(ms)) }
        #expect(l.percentile(50) == 50 && l.percentile(99) == 99 && l.percentile(100) == 100)
        for _ in 0..<100 { l.add(7) }  // the ring lets the old samples go
        #expect(l.percentile(99) == 7 && l.count == 200)
        l.add(-1)
        l.add(.nan)
        #expect(l.count == 200)
    }

    @Test func viewersAreSentLessWhileTheMachineIsShort() {
        #expect(ViewerLatency.viewerRate(maxFPS: 30, loadLevel: 0) == 30)
        #expect(ViewerLatency.viewerRate(maxFPS: 30, loadLevel: 1) == 20)
        #expect(ViewerLatency.viewerRate(maxFPS: 30, loadLevel: 3) == 15)
        #expect(ViewerLatency.viewerRate(maxFPS: 5, loadLevel: 2) == 5)
    }

    @Test func nextMayCarryThePagesPaintTime() {
        #expect(ViewerLatency.parseNext("next") == (true, nil))
        #expect(ViewerLatency.parseNext("next 23.5") == (true, 23.5))
        #expect(ViewerLatency.parseNext("next -3").isRequest == false)
        #expect(ViewerLatency.parseNext("nextx").isRequest == false)
        #expect(ViewerLatency.parseNext("give").isRequest == false)
    }
}
