// StereoMatchError: what can be wrong with a stereo pair or a matcher setting, said plainly.

/// Why a stereo pair could not be matched.
public enum StereoMatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The two views differ in size.
    case sizeMismatch(leftWidth: Int, leftHeight: Int, rightWidth: Int, rightHeight: Int)
    /// The two views differ in pixel format.
    case formatMismatch(left: String, right: String)
    /// The views are in a format the matcher cannot read luma from.
    case unsupportedFormat(String)
    /// The disparity range does not fit in the image.
    case maxDisparityTooLarge(maxDisparity: Int, width: Int)
    /// The processing resolution is too small to match anything.
    case imageTooSmall(width: Int, height: Int)
    /// A setting is out of range.
    case invalidSetting(field: String, message: String)

    public var description: String {
        switch self {
        case let .sizeMismatch(lw, lh, rw, rh):
            return "the left view is \(lw)x\(lh) but the right view is \(rw)x\(rh); both views need the same size"
        case let .formatMismatch(l, r):
            return "the left view is \(l) but the right view is \(r); both views need the same pixel format"
        case let .unsupportedFormat(f):
            return "pixel format \(f) has no luma plane to match; use gray8, i420 or nv12"
        case let .maxDisparityTooLarge(d, w):
            return "max-disparity \(d) is not smaller than the image width \(w); lower max-disparity"
        case let .imageTooSmall(w, h):
            return "the processing resolution \(w)x\(h) is too small (needs at least 16x8); raise scale"
        case let .invalidSetting(field, message):
            return "\(field): \(message)"
        }
    }
}
