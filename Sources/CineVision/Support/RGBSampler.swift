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

    /// The mean colour of `taps`×`taps` pixels (nearest, no interpolation) spread over the
    /// footprint from (`x0`, `y0`) in steps of (`stepX`, `stepY`) pixels, converted to RGB once:
    /// an area average for shrinking a frame several times, at a byte read per tap and plane.
    @inline(__always)
    func meanRGB(x0: Double, y0: Double, stepX: Double, stepY: Double, taps: Int) -> (Float, Float, Float) {
        let w = luma.width, h = luma.height
        var a: Int = 0, b: Int = 0, c: Int = 0
        for j in 0..<taps {
            let y = max(0, min(h - 1, Int(y0 + (Double(j) + 0.5) * stepY)))
            let row = luma.row(y, as: UInt8.self)
            switch format {
            case .rgba8:
                for i in 0..<taps {
                    let x = max(0, min(w - 1, Int(x0 + (Double(i) + 0.5) * stepX)))
                    a += Int(row[4 * x]); b += Int(row[4 * x + 1]); c += Int(row[4 * x + 2])
                }
            case .i420, .nv12:
                let cu = u.row(min(u.height - 1, y / 2), as: UInt8.self), cv = v.row(min(v.height - 1, y / 2), as: UInt8.self)
                for i in 0..<taps {
                    let x = max(0, min(w - 1, Int(x0 + (Double(i) + 0.5) * stepX)))
                    a += Int(row[x])
                    if format == .i420 { b += Int(cu[x / 2]); c += Int(cv[x / 2]) } else { b += Int(cu[x & ~1]); c += Int(cu[x | 1]) }
                }
            default:
                for i in 0..<taps { a += Int(row[max(0, min(w - 1, Int(x0 + (Double(i) + 0.5) * stepX)))]) }
            }
        }
        let n = Float(taps * taps)
        switch format {
        case .rgba8: return (Float(a) / n, Float(b) / n, Float(c) / n)
        case .i420, .nv12:
            let yv = Float(a) / n, cb = Float(b) / n - 128, cr = Float(c) / n - 128
            return (yv + 1.402 * cr, yv - 0.344136 * cb - 0.714136 * cr, yv + 1.772 * cb)
        default:
            let yv = Float(a) / n
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
