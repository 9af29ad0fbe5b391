// SceneTestSupport: small helpers the synthetic-scene tests share — rendering a frame into
// fresh images and reading samples and statistics back.
import CineMedia
import CineVision
import Foundation

/// One rendered stereo frame with its ground truth.
struct RenderedFrame {
    let left: Image
    let right: Image
    let truth: Image

    func luma(_ view: Image, _ x: Int, _ y: Int) -> Int { Int(view.plane(0).row(y, as: UInt8.self)[x]) }
    func cb(_ view: Image, _ x: Int, _ y: Int) -> Int { Int(view.plane(1).row(y, as: UInt8.self)[x]) }
    func disparity(_ x: Int, _ y: Int) -> Float { truth.plane(0).row(y, as: Float.self)[x] }

    /// Mean luma of `view` over a normalised rectangle (the whole frame by default).
    func meanLuma(_ view: Image, in rect: NormalizedRect = NormalizedRect(x: 0, y: 0, width: 1, height: 1)) -> Double {
        let (x0, x1, y0, y1) = pixelRange(rect, view)
        var sum = 0, count = 0
        for y in y0..<y1 {
            for x in x0..<x1 { sum += luma(view, x, y); count += 1 }
        }
        return Double(sum) / Double(max(1, count))
    }

    /// Pixel index ranges of a normalised rectangle.
    func pixelRange(_ rect: NormalizedRect, _ view: Image) -> (Int, Int, Int, Int) {
        let w = Double(view.width), h = Double(view.height)
        return (
            Int((rect.x * w).rounded()), Int(((rect.x + rect.width) * w).rounded()),
            Int((rect.y * h).rounded()), Int(((rect.y + rect.height) * h).rounded())
        )
    }
}

extension SyntheticScene {
    /// Renders frame `index` into freshly allocated images.
    func renderFrame(_ index: Int) -> RenderedFrame {
        let c = configuration
        let frame = RenderedFrame(
            left: Image(width: c.width, height: c.height, format: .i420),
            right: Image(width: c.width, height: c.height, format: .i420),
            truth: Image(width: c.width, height: c.height, format: .float32))
        render(frame: index, left: frame.left, right: frame.right, groundTruth: frame.truth)
        return frame
    }
}

/// All bytes of an image's planes, row by row (padding excluded).
func planeBytes(_ image: Image) -> [UInt8] {
    var bytes: [UInt8] = []
    for p in 0..<image.format.planeCount {
        let plane = image.plane(p)
        for y in 0..<plane.height {
            bytes.append(
                contentsOf: UnsafeBufferPointer(
                    start: plane.row(y, as: UInt8.self),
                    count: plane.width * plane.bytesPerSample))
        }
    }
    return bytes
}

/// The focal length for a 60° field of view at `width`.
func focalLength(width: Int) -> Double { Double(width) / 2 / tan(Double.pi / 6) }
