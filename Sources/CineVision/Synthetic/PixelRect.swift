// PixelRect: an axis-aligned rectangle in continuous pixel coordinates of the left view.
import CineMedia

/// A rectangle in continuous pixel coordinates (pixel `i` spans `i ..< i+1`), which may extend
/// beyond the image.
struct PixelRect: Sendable, Hashable {
    var left: Double
    var top: Double
    var right: Double
    var bottom: Double

    var width: Double { right - left }
    var height: Double { bottom - top }

    /// The part inside a `width` × `height` image, normalised to `0 ... 1`; zero-sized (at the
    /// nearest edge) when the rectangle is entirely outside.
    func normalized(width w: Int, height h: Int) -> NormalizedRect {
        let W = Double(w), H = Double(h)
        let l = min(W, max(0, left)), r = min(W, max(l, right))
        let t = min(H, max(0, top)), b = min(H, max(t, bottom))
        return NormalizedRect(x: l / W, y: t / H, width: (r - l) / W, height: (b - t) / H)
    }

    /// Whether any of the rectangle lies inside a `width` × `height` image.
    func intersects(width w: Int, height h: Int) -> Bool {
        right > 0 && left < Double(w) && bottom > 0 && top < Double(h) && right > left && bottom > top
    }
}
