// ImageDrawing: rectangle outlines on frames — how previews show detections (solid or dashed,
// in the colours of the reference UI).

/// A colour in video-range BT.601 YUV, the space camera frames are in.
public struct VideoColor: Sendable, Hashable {
    public var y: UInt8
    public var u: UInt8
    public var v: UInt8
    /// Creates a colour from its YUV components.
    public init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }
    /// Creates a colour from 8-bit RGB (BT.601, video range).
    public init(red r: Double, green g: Double, blue b: Double) {
        func clamp(_ x: Double) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
        y = clamp(16 + 0.257 * r + 0.504 * g + 0.098 * b)
        u = clamp(128 - 0.148 * r - 0.291 * g + 0.439 * b)
        v = clamp(128 + 0.439 * r - 0.368 * g - 0.071 * b)
    }
    /// The reference UI's yellow (a subject in focus).
    public static let focusYellow = VideoColor(red: 255, green: 214, blue: 10)
    /// White (a subject not in focus).
    public static let white = VideoColor(red: 255, green: 255, blue: 255)
}

extension Image {
    /// Draws the outline of `rect` (normalised coordinates) with lines `thickness` pixels wide.
    /// `dash` > 0 draws dashes of that many pixels with equal gaps. Works on I420, NV12 and gray8;
    /// other formats are left untouched. Draw only on an image you own (a copy, not a published frame).
    /// Cost: proportional to the perimeter, a few kB per rectangle.
    public func strokeRectangle(_ rect: NormalizedRect, color: VideoColor, thickness: Int = 3, dash: Int = 0) {
        guard format == .i420 || format == .nv12 || format == .gray8 else { return }
        let x0 = max(0, min(width - 1, Int((rect.x * Double(width)).rounded())))
        let y0 = max(0, min(height - 1, Int((rect.y * Double(height)).rounded())))
        let x1 = max(x0, min(width - 1, Int(((rect.x + rect.width) * Double(width)).rounded()) - 1))
        let y1 = max(y0, min(height - 1, Int(((rect.y + rect.height) * Double(height)).rounded()) - 1))
        let t = max(1, thickness)
        // Horizontal edges, then vertical ones, as filled spans; dashes skip every other run.
        func on(_ position: Int) -> Bool { dash <= 0 || (position / dash) % 2 == 0 }
        for y in [y0, max(y0, y1 - t + 1)] {
            for x in x0...x1 where on(x - x0) { fill(x: x, y: y, width: 1, height: min(t, y1 - y + 1), color: color) }
        }
        for x in [x0, max(x0, x1 - t + 1)] {
            for y in y0...y1 where on(y - y0) { fill(x: x, y: y, width: min(t, x1 - x + 1), height: 1, color: color) }
        }
    }

    /// Fills a pixel rectangle with `color` (luma exact, chroma for the 2×2 blocks it touches).
    public func fill(x: Int, y: Int, width w: Int, height h: Int, color: VideoColor) {
        let luma = plane(0)
        for row in y..<min(height, y + h) {
            luma.row(row).advanced(by: x).initializeMemory(as: UInt8.self, repeating: color.y, count: min(w, width - x))
        }
        guard format != .gray8 else { return }
        let cx0 = x / 2, cx1 = (min(width, x + w) - 1) / 2, cy0 = y / 2, cy1 = (min(height, y + h) - 1) / 2
        if format == .i420 {
            let u = plane(1), v = plane(2)
            for row in cy0...cy1 {
                u.row(row).advanced(by: cx0).initializeMemory(as: UInt8.self, repeating: color.u, count: cx1 - cx0 + 1)
                v.row(row).advanced(by: cx0).initializeMemory(as: UInt8.self, repeating: color.v, count: cx1 - cx0 + 1)
            }
        } else {
            let uv = plane(1)
            for row in cy0...cy1 {
                let p = uv.row(row, as: UInt8.self)
                for cx in cx0...cx1 {
                    p[2 * cx] = color.u
                    p[2 * cx + 1] = color.v
                }
            }
        }
    }
}
