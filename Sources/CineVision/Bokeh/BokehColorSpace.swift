// BokehColorSpace: the colour conversions of the bokeh renderers — 8-bit BT.709 limited-range
// YCbCr to linear light and back, and the highlight boost that keeps bokeh disks bright.
import Foundation

/// Conversions between camera video (BT.709 limited-range Y'CbCr, gamma 2.2) and the linear
/// RGB the renderers blur in, plus the highlight boost.
///
/// Blurring in linear light is what makes a bright point spread into a bright disk instead of
/// a grey smudge. Clipped highlights have lost their true intensity, so values near white are
/// boosted before blurring: `v · (1 + boost · smoothstep(threshold, 1, max(r, g, b)))`; the
/// result is clipped back to 1 after compositing, so sharp highlights are unchanged and
/// blurred ones stay bright.
public enum BokehColorSpace {
    /// Entries in the gamma → linear table (indexed by gamma value × (count − 1)).
    public static let decodeCount = 1024
    /// Entries in the linear → gamma table.
    public static let encodeCount = 4096
    /// Display gamma of the transfer function.
    public static let gamma: Float = 2.2
    /// Linear brightness above which the highlight boost starts.
    public static let highlightThreshold: Float = 0.75

    /// Gamma value (0…1) → linear, sampled at `decodeCount` points.
    public static let decodeTable: [Float] = (0..<decodeCount).map { (i: Int) -> Float in
        let g = Double(i) / Double(decodeCount - 1)
        return Float(pow(g, Double(gamma)))
    }

    /// Linear value (0…1) → gamma value, sampled at `encodeCount` points.
    public static let encodeTable: [Float] = (0..<encodeCount).map { (i: Int) -> Float in
        let v = Double(i) / Double(encodeCount - 1)
        return Float(pow(v, 1 / Double(gamma)))
    }

    /// Gamma-encoded R'G'B' (0…1) of 8-bit BT.709 limited-range Y'CbCr code values.
    @inline(__always)
    public static func rgb(y: Float, u: Float, v: Float) -> SIMD3<Float> {
        let l = (y - 16) * (1 / 219)
        let cb = (u - 128) * (1 / 224), cr = (v - 128) * (1 / 224)
        return SIMD3(l + 1.5748 * cr, l - 0.187324 * cb - 0.468124 * cr, l + 1.8556 * cb)
    }

    /// 8-bit BT.709 limited-range Y'CbCr code values (unrounded) of gamma-encoded R'G'B'.
    @inline(__always)
    public static func yuv(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let l = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
        return SIMD3(16 + 219 * l, 128 + 224 * (c.z - l) / 1.8556, 128 + 224 * (c.x - l) / 1.5748)
    }

    /// Linear value of a gamma value through `table` (``decodeTable``), clamped to 0…1.
    @inline(__always)
    public static func decode(_ g: Float, _ table: UnsafePointer<Float>) -> Float {
        let i = Int(min(max(g, 0), 1) * Float(decodeCount - 1) + 0.5)
        return table[i]
    }

    /// Gamma value of a linear value through `table` (``encodeTable``), clamped to 0…1.
    @inline(__always)
    public static func encode(_ v: Float, _ table: UnsafePointer<Float>) -> Float {
        let i = Int(min(max(v, 0), 1) * Float(encodeCount - 1) + 0.5)
        return table[i]
    }

    /// The highlight gain for linear colour `c`: 1 below ``highlightThreshold``, rising
    /// smoothly to `1 + boost` at white.
    @inline(__always)
    public static func highlightGain(_ c: SIMD3<Float>, boost: Float) -> Float {
        let m = max(c.x, max(c.y, c.z))
        let t = min(max((m - highlightThreshold) / (1 - highlightThreshold), 0), 1)
        return 1 + boost * t * t * (3 - 2 * t)
    }
}
