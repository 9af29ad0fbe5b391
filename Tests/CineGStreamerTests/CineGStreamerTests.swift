// The GStreamer test suite (serialized: every test runs real pipelines) and its shared helpers.
import CineMedia
import Foundation
import Testing

@testable import CineGStreamer

/// All GStreamer tests; nested suites in the other files run one test at a time.
@Suite(.serialized) struct CineGStreamerTests {}

/// Synthetic frames whose content changes from frame to frame, so encoders have work to do.
enum TestFrames {
    /// A frame of `format` with a diagonal gradient that moves with `index`.
    static func make(
        _ format: PixelFormat, width: Int = 320, height: Int = 240, index: Int = 0,
        pool: ImagePool? = nil
    ) -> Image {
        let image =
            pool?.makeImage(width: width, height: height, format: format)
            ?? Image(width: width, height: height, format: format)
        for p in 0..<format.planeCount {
            let plane = image.plane(p)
            let bytes = plane.width * plane.bytesPerSample
            for y in 0..<plane.height {
                let row = plane.row(y, as: UInt8.self)
                for x in 0..<bytes { row[x] = p == 0 ? UInt8(truncatingIfNeeded: x + y + 4 * index) : 128 }
            }
        }
        return image
    }

    /// Whether `a` and `b` have the same size, format and pixel bytes (padding aside).
    static func samePixels(_ a: Image, _ b: Image) -> Bool {
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return false }
        for p in 0..<a.format.planeCount {
            let pa = a.plane(p), pb = b.plane(p)
            for y in 0..<pa.height where memcmp(pa.row(y), pb.row(y), pa.width * pa.bytesPerSample) != 0 {
                return false
            }
        }
        return true
    }
}

/// A folder under the system's temporary directory, removed when the test is done with it.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cinegstreamer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
