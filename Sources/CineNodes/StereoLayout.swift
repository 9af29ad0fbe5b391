// StereoLayout: how the two views of a stereo camera share one frame, and splitting them
// without copying.
import CineGraph
import CineMedia

/// How a source's frames hold the views.
public enum StereoLayout: String, ParameterEnum {
    /// One view only (a plain webcam): `left` is the frame; `right` and `stereo` are not produced.
    case mono
    /// Left view in the left half, right view in the right half (most USB stereo cameras).
    case sideBySide = "side-by-side"
    /// Left view on top, right view below.
    case topBottom = "top-bottom"

    /// Splits `frame` into its views — crops that share the frame's buffer, no pixels copied.
    /// Halves are rounded down to even sizes so that 4:2:0 chroma stays aligned.
    public func split(_ frame: Image) -> (left: Image, right: Image?) {
        switch self {
        case .mono:
            return (frame, nil)
        case .sideBySide:
            let w = (frame.width / 2) & ~1
            return (frame.cropped(x: 0, y: 0, width: w, height: frame.height),
                    frame.cropped(x: w, y: 0, width: w, height: frame.height))
        case .topBottom:
            let h = (frame.height / 2) & ~1
            return (frame.cropped(x: 0, y: 0, width: frame.width, height: h),
                    frame.cropped(x: 0, y: h, width: frame.width, height: h))
        }
    }
}

/// The three stereo outputs every stereo source offers; assigned together.
struct StereoOutputs {
    /// Rectifies the pair when a calibration is set, then assigns the outputs.
    static func assign(_ left: Image, _ right: Image?, rectifying rectification: inout StereoRectification,
                       left l: Output<Image>, right r: Output<Image>, stereo s: Output<StereoFrame>,
                       _ ctx: NodeContext) throws {
        guard let right, rectification.isEnabled else { return assign(left, right, left: l, right: r, stereo: s, ctx) }
        let (a, b) = try rectification.apply(left, right, pool: ctx.pool)
        assign(a, b, left: l, right: r, stereo: s, ctx)
    }

    static func assign(_ left: Image, _ right: Image?, left l: Output<Image>, right r: Output<Image>,
                       stereo s: Output<StereoFrame>, _ ctx: NodeContext) {
        if ctx.isConnected(l.projectedValue) { l.wrappedValue = left }
        if let right {
            if ctx.isConnected(r.projectedValue) { r.wrappedValue = right }
            if ctx.isConnected(s.projectedValue) { s.wrappedValue = StereoFrame(left: left, right: right) }
        }
    }
}
