// StereoFrame: the two views of one instant.

/// The left and right views of one instant, rectified. The left view is the reference view:
/// disparity maps, detections and the rendered output are in its coordinates.
public struct StereoFrame: Sendable {
    /// The reference view.
    public var left: Image
    /// The other view; a point at disparity `d` in the left view at x is at `x - d` here.
    public var right: Image

    /// Creates a stereo frame from two views of the same size and format.
    public init(left: Image, right: Image) {
        precondition(left.width == right.width && left.height == right.height && left.format == right.format,
                     "both views of a stereo frame need the same size and format")
        self.left = left
        self.right = right
    }
}
