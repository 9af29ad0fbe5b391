// BokehError: inputs the bokeh renderer refuses, with what to do about them.

/// Why the bokeh renderer refused a frame. The renderer never returns a garbage frame: it
/// throws one of these instead.
public enum BokehError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The image is neither I420 with even sides nor RGBA, or it is empty.
    case unsupportedImage(format: String, width: Int, height: Int)
    /// The disparity map's aspect ratio differs from the image's.
    case aspectRatioMismatch(imageWidth: Int, imageHeight: Int, mapWidth: Int, mapHeight: Int)
    /// The disparity map holds NaNs (invalid samples must be `+inf`).
    case notANumber(count: Int, x: Int, y: Int)
    /// The disparity map has no valid sample at all.
    case noValidDisparity(width: Int, height: Int)
    /// The f-number is outside ``LensModel/fNumberRange``.
    case apertureOutOfRange(Double)
    /// The focus disparity is not a finite number.
    case invalidFocus(Double)

    public var description: String {
        switch self {
        case let .unsupportedImage(format, w, h):
            return "image is \(format) \(w)x\(h); the bokeh renderer needs RGBA, or I420 with even sides"
        case let .aspectRatioMismatch(iw, ih, mw, mh):
            return "disparity map \(mw)x\(mh) does not have the aspect ratio of the \(iw)x\(ih) image"
                + "; scale it to a fraction of the image size"
        case let .notANumber(count, x, y):
            return "disparity map holds \(count) NaN sample(s), the first at (\(x), \(y)); mark invalid samples +inf"
        case let .noValidDisparity(w, h):
            return "disparity map \(w)x\(h) has no valid (finite) sample"
        case let .apertureOutOfRange(n):
            return "aperture f/\(n) is outside f/\(LensModel.minimumFNumber)...f/\(LensModel.maximumFNumber)"
        case let .invalidFocus(d):
            return "focus disparity \(d) is not a finite number"
        }
    }
}
