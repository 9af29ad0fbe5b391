// RGBSampler: bilinear RGB (0…255) at any point of a frame in any of cinegraph's 8-bit formats —
// what learned models' input tensors are filled from.
import CineMedia

/// Samples a frame's colour at sub-pixel positions: I420 and NV12 (BT.601 full range), RGBA,
/// gray (R = G = B). Positions are in pixels of the frame, centres at +0.5; outside is clamped.
public struct RGBSampler {
    private let luma: Plane
    private let u: Plane
    private let v: Plane
    private let format: PixelFormat

    init(_ image: Image) {
        format = image.format
        luma = image.plane(0)
        u = format == .i420 || format == .nv12 ? image.plane(1) : luma
        v = format == .i420 ? image.plane(2) : u
    }

    /// Red, green and blue at (`fx`, `fy`), 0…255 (may overshoot a little from YCbCr).
    @inline(__always)
    func rgb(_ fx: Double, _ fy: Double) -> (Float, Float, Float) {
        switch format {
        case .rgba8:
            return (Self.bilinear(luma, fx, fy, channels: 4, channel: 0), Self.bilinear(luma, fx, fy, channels: 4, channel: 1),
                    Self.bilinear(luma, fx, fy, channels: 4, channel: 2))
        case .i420, .nv12:
            let yv = Self.bilinear(luma, fx, fy, channels: 1, channel: 0)
            let cx = (fx + 0.5) / 2 - 0.5, cy = (fy + 0.5) / 2 - 0.5
            let cb: Float, cr: Float
            if format == .i420 {
                cb = Self.bilinear(u, cx, cy, channels: 1, channel: 0) - 128
                cr = Self.bilinear(v, cx, cy, channels: 1, channel: 0) - 128
            } else {
                cb = Self.bilinear(u, cx, cy, channels: 2, channel: 0) - 128
                cr = Self.bilinear(u, cx, cy, channels: 2, channel: 1) - 128
            }
            return (yv + 1.402 * cr, yv - 0.344136 * cb - 0.714136 * cr, yv + 1.772 * cb)
        default:
            let yv = Self.bilinear(luma, fx, fy, channels: 1, channel: 0)
            return (yv, yv, yv)
        }
    }

    /// The bilinear sample of `channel` (of `channels` interleaved) at pixel coordinates
    /// (`x`, `y`), clamped to the plane.
    @inline(__always)
    public static func bilinear(_ p: Plane, _ x: Double, _ y: Double, channels: Int, channel: Int) -> Float {
        let w = p.width, h = p.height
        let cx = max(0, min(Double(w - 1), x)), cy = max(0, min(Double(h - 1), y))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(w - 1, x0 + 1), y1 = min(h - 1, y0 + 1)
        let ax = Float(cx - Double(x0)), ay = Float(cy - Double(y0))
        let r0 = p.row(y0, as: UInt8.self), r1 = p.row(y1, as: UInt8.self)
        let a = Float(r0[x0 * channels + channel]), b = Float(r0[x1 * channels + channel])
        let c = Float(r1[x0 * channels + channel]), d = Float(r1[x1 * channels + channel])
        return (a + (b - a) * ax) * (1 - ay) + (c + (d - c) * ax) * ay
    }
}
