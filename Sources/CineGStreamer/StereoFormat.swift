// StereoFormat: which of a camera's formats look like a stereo camera's — two views side by side
// (2560×720, 3840×1080, 1280×480) or one above the other — judged from the frame's shape.

/// A camera format whose shape says it holds two views.
public struct StereoFormat: Sendable, Equatable, CustomStringConvertible {
    /// How the views share the frame.
    public enum Layout: String, Sendable {
        /// Left view in the left half (the camera node's `layout: side-by-side`).
        case sideBySide = "side-by-side"
        /// Left view on top (`layout: top-bottom`).
        case topBottom = "top-bottom"
    }

    /// The layout the shape suggests.
    public var layout: Layout
    /// The whole frame's width.
    public var width: Int
    /// The whole frame's height.
    public var height: Int
    /// `mjpeg` or the raw pixel format (`yuy2`, …), as the camera node's `format` names it.
    public var format: String

    /// Reads a caps structure as the device monitor lists it (`image/jpeg, width=(int)2560,
    /// height=(int)720, …`). A frame wider than 2.4 times its height cannot be one ordinary
    /// lens (16:9 is 1.78; two 4:3 views side by side are 2.67, two 16:9 views 3.56); one taller
    /// than 1.3 times its width is two views stacked. Returns `nil` for an ordinary format or a
    /// size given as a range.
    public init?(caps: String) {
        func integer(_ key: String) -> Int? {
            guard let r = caps.range(of: "\(key)=(int)") else { return nil }
            return Int(caps[r.upperBound...].prefix { $0.isNumber })
        }
        guard let w = integer("width"), let h = integer("height"), w > 0, h > 0 else { return nil }
        let aspect = Double(w) / Double(h)
        if aspect >= 2.4 {
            layout = .sideBySide
        } else if aspect <= 1 / 1.3 {
            layout = .topBottom
        } else {
            return nil
        }
        width = w
        height = h
        if caps.hasPrefix("image/jpeg") {
            format = "mjpeg"
        } else if let r = caps.range(of: "format=(string)") {
            format = caps[r.upperBound...].prefix { $0.isLetter || $0.isNumber }.lowercased()
        } else {
            format = "auto"
        }
    }

    /// `2560x720 mjpeg, side-by-side (two 1280x720 views)`.
    public var description: String {
        let view = layout == .sideBySide ? "\(width / 2)x\(height)" : "\(width)x\(height / 2)"
        return "\(width)x\(height) \(format), \(layout.rawValue) (two \(view) views)"
    }
}
