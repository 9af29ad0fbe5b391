// StereoCameraModel: the pinhole geometry of the synthetic rectified stereo pair — where a
// world point lands in the left view, and how far it shifts in the right one.
import Foundation

/// A rectified pinhole stereo pair, both cameras level and looking along +Z.
///
/// World coordinates in metres: X to the right, Y up from the floor, Z forward from the
/// left camera. The principal point is the image centre. A point at depth Z has disparity
/// `f·B/Z` pixels: at left-view x it appears at `x − d` in the right view.
struct StereoCameraModel: Sendable, Hashable {
    /// Image width in pixels.
    let width: Int
    /// Image height in pixels.
    let height: Int
    /// Focal length in pixels: `(width/2) / tan(fov/2)`.
    let focalLength: Double
    /// Distance between the two optical centres, metres.
    let baseline: Double
    /// Height of the cameras above the floor, metres (about eye level, seated).
    let cameraHeight = 1.45

    init(width: Int, height: Int, baseline: Double, fieldOfViewDegrees: Double) {
        self.width = width
        self.height = height
        self.baseline = baseline
        focalLength = Double(width) / 2 / tan(fieldOfViewDegrees * Double.pi / 360)
    }

    /// Horizontal principal point (continuous pixel coordinates, 0 = left edge of pixel 0).
    var centreX: Double { Double(width) / 2 }
    /// Vertical principal point.
    var centreY: Double { Double(height) / 2 }
    /// `tan` of half the horizontal field of view: visible half-width per metre of depth.
    var tanHalfWidth: Double { centreX / focalLength }

    /// Disparity in pixels of a surface at `depth` metres.
    func disparity(atDepth depth: Double) -> Double { focalLength * baseline / depth }

    /// Left-view x of world X at `depth`.
    func pixelX(_ x: Double, depth: Double) -> Double { centreX + focalLength * x / depth }

    /// Left-view y of world height Y at `depth` (rows grow downwards).
    func pixelY(_ y: Double, depth: Double) -> Double { centreY - focalLength * (y - cameraHeight) / depth }

    /// The left-view rectangle covering world `x0...x1` × `y0...y1` (y1 above y0) at `depth`.
    func rect(x0: Double, x1: Double, bottom y0: Double, top y1: Double, depth: Double) -> PixelRect {
        PixelRect(
            left: pixelX(x0, depth: depth), top: pixelY(y1, depth: depth),
            right: pixelX(x1, depth: depth), bottom: pixelY(y0, depth: depth))
    }
}
