// KeptPair: the stereo pair as an asset keeps it for matching depth again after the take — both
// views' luma at a quarter of the size, side by side, in an I420 frame with neutral chroma — and
// back at the views' size.

/// What a take keeps of its stereo pair so that its depth can be matched again after the take
/// (`cinegraph render --repair`, docs/asset.md#repairing-a-take).
///
/// The stereo matcher reads luma only, box-filtered to a quarter of the views' size by default
/// (the `disparity` node's `scale: 0.25`), so each view is kept as its luma averaged over 4×4
/// blocks: the very samples the matcher's filter makes. Both views are kept — not the right view
/// alone beside the recorded video — so that both go through the same encoder: a pair
/// compressed alike matches as the original did. Restored, each sample fills the 4×4 block it
/// was averaged from.
public enum KeptPair {
    /// How many view pixels, across and down, one kept sample averages.
    public static let factor = 4

    /// The kept frame's size for views of `width` × `height`: each view at a quarter of the size
    /// (rounded down to even), side by side.
    public static func size(width: Int, height: Int) -> (width: Int, height: Int) {
        let (w, h) = view(width: width, height: height)
        return (2 * w, h)
    }

    /// One view's size in the kept frame.
    static func view(width: Int, height: Int) -> (width: Int, height: Int) {
        (max(2, (width / factor) & ~1), max(2, (height / factor) & ~1))
    }

    /// The pair's luma (plane 0 of gray8, I420 or NV12 views of one size) averaged over 4×4
    /// blocks, left then right, as I420 with neutral chroma, ready for the asset's encoder.
    public static func recorded(left: Image, right: Image, pool: ImagePool? = nil) -> Image {
        precondition(left.width == right.width && left.height == right.height, "the views of a pair have one size")
        let (w, h) = view(width: left.width, height: left.height)
        let out = pool?.makeImage(width: 2 * w, height: h, format: .i420) ?? Image(width: 2 * w, height: h, format: .i420)
        let dst = out.plane(0)
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: w * factor) { sums in
            for (index, image) in [left, right].enumerated() {
                let src = image.plane(0)
                for y in 0..<h {
                    // Four rows summed column by column (vectorised), then each run of four columns.
                    let r0 = src.row(4 * y, as: UInt8.self), r1 = src.row(4 * y + 1, as: UInt8.self)
                    let r2 = src.row(4 * y + 2, as: UInt8.self), r3 = src.row(4 * y + 3, as: UInt8.self)
                    for x in 0..<(w * 4) {
                        sums[x] = UInt16(r0[x]) &+ UInt16(r1[x]) &+ UInt16(r2[x]) &+ UInt16(r3[x])
                    }
                    let d = dst.row(y, as: UInt8.self) + index * w
                    for x in 0..<w {
                        let s = sums[4 * x] &+ sums[4 * x + 1] &+ sums[4 * x + 2] &+ sums[4 * x + 3]
                        d[x] = UInt8(truncatingIfNeeded: (s &+ 8) &>> 4)
                    }
                }
            }
        }
        neutralChroma(out)
        return out
    }

    /// A kept frame back as the pair at `width` × `height` (the views' size), I420 with neutral
    /// chroma: each kept sample fills the 4×4 block it was averaged from.
    public static func restored(_ kept: Image, width: Int, height: Int, pool: ImagePool? = nil) -> StereoFrame {
        let src = kept.plane(0)
        let w = src.width / 2, maxX = w - 1, maxY = src.height - 1
        let views = (0..<2).map { index in
            let out = pool?.makeImage(width: width, height: height, format: .i420) ?? Image(width: width, height: height, format: .i420)
            let dst = out.plane(0)
            for y in 0..<height {
                let s = src.row(min(maxY, y / factor), as: UInt8.self) + index * w, d = dst.row(y, as: UInt8.self)
                for x in 0..<width { d[x] = s[min(maxX, x / factor)] }
            }
            neutralChroma(out)
            return out
        }
        return StereoFrame(left: views[0], right: views[1])
    }

    private static func neutralChroma(_ image: Image) {
        for p in 1...2 {
            let plane = image.plane(p)
            for y in 0..<plane.height { plane.row(y).initializeMemory(as: UInt8.self, repeating: 128, count: plane.width) }
        }
    }
}
