// SimilarityTransform: the 4-parameter motion model of the stabilizer (shift, rotation, uniform
// scale) in full-resolution pixel coordinates measured from the frame centre.

import Foundation

/// A similarity transform `p' = s·R(θ)·p + (dx, dy)` on points measured in full-resolution pixels
/// from the centre of the frame (x right, y down).
///
/// The stabilizer describes camera motion with it: ``MotionEstimator`` returns the transform that
/// carries a scene point's position in one frame to its position in the next. Measuring from the
/// centre keeps rotation and translation nearly independent, which is what makes the smoothed
/// parameters meaningful.
public struct SimilarityTransform: Sendable, Equatable, CustomStringConvertible {
    /// `s·cos θ`.
    public var a: Double
    /// `s·sin θ`.
    public var b: Double
    /// Horizontal translation in pixels.
    public var dx: Double
    /// Vertical translation in pixels.
    public var dy: Double

    /// The transform that changes nothing.
    public static let identity = SimilarityTransform(a: 1, b: 0, dx: 0, dy: 0)

    /// Creates a transform from its matrix entries `[a −b; b a]` and translation.
    public init(a: Double, b: Double, dx: Double, dy: Double) {
        self.a = a
        self.b = b
        self.dx = dx
        self.dy = dy
    }

    /// Creates a transform from a shift in pixels, a rotation in radians (clockwise on screen,
    /// since y points down) and a uniform scale.
    public init(dx: Double, dy: Double, rotation: Double = 0, scale: Double = 1) {
        self.init(a: scale * cos(rotation), b: scale * sin(rotation), dx: dx, dy: dy)
    }

    /// The rotation in radians.
    public var rotation: Double { atan2(b, a) }
    /// The uniform scale factor.
    public var scale: Double { (a * a + b * b).squareRoot() }

    /// Where the transform sends the point `(x, y)`.
    @inline(__always)
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x - b * y + dx, b * x + a * y + dy)
    }

    /// The transform that undoes this one.
    public var inverse: SimilarityTransform {
        let d = a * a + b * b
        let ia = a / d, ib = -b / d
        return SimilarityTransform(a: ia, b: ib, dx: -(ia * dx - ib * dy), dy: -(ib * dx + ia * dy))
    }

    /// The transform that applies `first`, then this one.
    public func after(_ first: SimilarityTransform) -> SimilarityTransform {
        SimilarityTransform(
            a: a * first.a - b * first.b, b: b * first.a + a * first.b,
            dx: a * first.dx - b * first.dy + dx, dy: b * first.dx + a * first.dy + dy)
    }

    public var description: String {
        let deg = rotation * 180 / .pi
        return String(format: "shift (%.3f, %.3f) px, rotation %.4f°, scale %.5f", dx, dy, deg, scale)
    }
}
