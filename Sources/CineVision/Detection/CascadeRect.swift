// CascadeRect: an integer pixel rectangle, the unit of cascade detection (like OpenCV's cv::Rect).

/// An axis-aligned rectangle in integer pixels: origin at the top left, `x`/`y` of its first pixel.
public struct CascadeRect: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Left column.
    public var x: Int
    /// Top row.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Area in pixels (0 for empty rectangles).
    public var area: Int { max(0, width) * max(0, height) }

    /// Intersection over union with `other` (0 when disjoint).
    public func intersectionOverUnion(_ other: CascadeRect) -> Double {
        let ix = max(0, min(x + width, other.x + other.width) - max(x, other.x))
        let iy = max(0, min(y + height, other.y + other.height) - max(y, other.y))
        let inter = ix * iy
        let union = area + other.area - inter
        return union > 0 ? Double(inter) / Double(union) : 0
    }

    /// `WxH+X+Y`.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
