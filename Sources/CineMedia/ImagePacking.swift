// ImagePacking: placing images side by side or one above the other (the layout of
// stereo recordings).

extension Image {
    /// Copies `left` and `right` (same size and format) into one image twice as wide
    /// (`vertical: false`) or twice as tall. Cost: one read and one write of every byte.
    public static func packed(_ left: Image, _ right: Image, vertical: Bool = false, pool: ImagePool? = nil) -> Image {
        precondition(left.width == right.width && left.height == right.height && left.format == right.format,
                     "packed views need the same size and format")
        let w = vertical ? left.width : left.width * 2
        let h = vertical ? left.height * 2 : left.height
        let out = pool?.makeImage(width: w, height: h, format: left.format) ?? Image(width: w, height: h, format: left.format)
        let first = out.cropped(x: 0, y: 0, width: left.width, height: left.height)
        let second = vertical
            ? out.cropped(x: 0, y: left.height, width: left.width, height: left.height)
            : out.cropped(x: left.width, y: 0, width: left.width, height: left.height)
        first.copyPixels(from: left)
        second.copyPixels(from: right)
        return out
    }
}
