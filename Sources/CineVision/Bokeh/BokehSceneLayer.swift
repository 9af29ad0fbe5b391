// BokehSceneLayer: one fronto-parallel layer of a synthetic scene, complete behind whatever
// hides it — the input of the reference renderer.

/// A fronto-parallel layer: linear RGB and coverage over the whole frame (including the parts
/// that nearer layers hide), at one disparity.
public struct BokehSceneLayer: Sendable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Linear RGB per pixel, row-major.
    public var color: [SIMD3<Float>]
    /// Coverage (alpha, 0…1) per pixel, row-major.
    public var coverage: [Float]
    /// Disparity of the layer in pixels (larger = nearer).
    public var disparity: Double

    /// Creates a layer; `color` and `coverage` hold `width × height` values.
    public init(width: Int, height: Int, color: [SIMD3<Float>], coverage: [Float], disparity: Double) {
        precondition(color.count == width * height && coverage.count == width * height, "layer arrays must cover the frame")
        self.width = width
        self.height = height
        self.color = color
        self.coverage = coverage
        self.disparity = disparity
    }
}
