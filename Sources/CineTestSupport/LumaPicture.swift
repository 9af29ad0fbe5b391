// LumaPicture: an image's luma written as a PGM file — how the vision suites leave the pictures
// they judged for a person to open, without a codec.
import CineMedia
import Foundation

public enum LumaPicture {
    /// Writes plane 0 of `image` (8-bit: gray8, I420, NV12's luma) to `path` as binary PGM.
    public static func write(_ image: Image, to path: String) throws {
        var data = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
        data.reserveCapacity(data.count + image.width * image.height)
        for y in 0..<image.height {
            data.append(UnsafeBufferPointer(start: image.plane(0).row(y, as: UInt8.self), count: image.width))
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
