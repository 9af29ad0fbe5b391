// SceneColor: the RGB colours texture tiles are painted with, and their BT.709 YCbCr values.

/// An RGB colour with components in `0 ... 1`, converted to 8-bit BT.709 limited-range
/// YCbCr (the usual colorimetry of HD camera video) when a tile is stored.
struct SceneColor {
    var red: Double
    var green: Double
    var blue: Double

    init(_ red: Double, _ green: Double, _ blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The colour scaled by `factor` (a shading multiplier).
    static func * (color: SceneColor, factor: Double) -> SceneColor {
        SceneColor(color.red * factor, color.green * factor, color.blue * factor)
    }

    /// The sum of two colours (for averaging).
    static func + (a: SceneColor, b: SceneColor) -> SceneColor {
        SceneColor(a.red + b.red, a.green + b.green, a.blue + b.blue)
    }

    /// `a` blended towards `b` by `t` (0 = a, 1 = b).
    static func mix(_ a: SceneColor, _ b: SceneColor, _ t: Double) -> SceneColor {
        let s = min(1, max(0, t))
        return SceneColor(
            a.red + (b.red - a.red) * s, a.green + (b.green - a.green) * s, a.blue + (b.blue - a.blue) * s)
    }

    private var clamped: SceneColor {
        SceneColor(min(1, max(0, red)), min(1, max(0, green)), min(1, max(0, blue)))
    }

    /// Non-linear luma E'Y in `0 ... 1`.
    private var lumaFraction: Double {
        let c = clamped
        return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue
    }

    /// 8-bit limited-range luma (16 ... 235).
    var luma: UInt8 { UInt8((16 + 219 * lumaFraction).rounded()) }

    /// 8-bit limited-range blue-difference chroma (16 ... 240, neutral 128).
    var cb: UInt8 { UInt8((128 + 224 * (clamped.blue - lumaFraction) / 1.8556).rounded()) }

    /// 8-bit limited-range red-difference chroma (16 ... 240, neutral 128).
    var cr: UInt8 { UInt8((128 + 224 * (clamped.red - lumaFraction) / 1.5748).rounded()) }
}
