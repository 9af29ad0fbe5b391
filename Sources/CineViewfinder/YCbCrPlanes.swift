// YCbCrPlanes: a frame scaled down (box filter) into the three 8-bit planes a 4:2:0 JPEG
// encodes, padded to whole 16×16 macroblocks by repeating the last row and column.
import CineMedia

/// Luma at the output size and chroma at half of it, padded to multiples of 16 (8 for chroma).
struct YCbCrPlanes {
    let width: Int
    let height: Int
    let paddedWidth: Int
    let paddedHeight: Int
    var y: [UInt8]
    var cb: [UInt8]
    var cr: [UInt8]

    /// Scales `image` to at most `maxWidth` wide; `nil` for formats other than I420, NV12,
    /// RGBA and gray8.
    init?(_ image: Image, maxWidth: Int) {
        let (w, h) = JPEGEncoder.outputSize(of: image, maxWidth: maxWidth)
        width = w
        height = h
        paddedWidth = (w + 15) & ~15
        paddedHeight = (h + 15) & ~15
        let cw = paddedWidth / 2, ch = paddedHeight / 2
        y = [UInt8](repeating: 0, count: paddedWidth * paddedHeight)
        cb = [UInt8](repeating: 128, count: cw * ch)
        cr = [UInt8](repeating: 128, count: cw * ch)
        switch image.format {
        case .i420:
            Self.scale(image.plane(0), channels: 1, channel: 0, into: &y, width: w, height: h, stride: paddedWidth)
            Self.scale(image.plane(1), channels: 1, channel: 0, into: &cb, width: w / 2, height: h / 2, stride: cw)
            Self.scale(image.plane(2), channels: 1, channel: 0, into: &cr, width: w / 2, height: h / 2, stride: cw)
        case .nv12:
            Self.scale(image.plane(0), channels: 1, channel: 0, into: &y, width: w, height: h, stride: paddedWidth)
            Self.scale(image.plane(1), channels: 2, channel: 0, into: &cb, width: w / 2, height: h / 2, stride: cw)
            Self.scale(image.plane(1), channels: 2, channel: 1, into: &cr, width: w / 2, height: h / 2, stride: cw)
        case .gray8:
            Self.scale(image.plane(0), channels: 1, channel: 0, into: &y, width: w, height: h, stride: paddedWidth)
        case .rgba8:
            Self.convertRGBA(image.plane(0), y: &y, cb: &cb, cr: &cr, width: w, height: h, stride: paddedWidth)
        case .gray16, .float32:
            return nil
        }
        Self.pad(&y, width: w, height: h, stride: paddedWidth, paddedHeight: paddedHeight)
        Self.pad(&cb, width: w / 2, height: h / 2, stride: cw, paddedHeight: ch)
        Self.pad(&cr, width: w / 2, height: h / 2, stride: cw, paddedHeight: ch)
    }

    /// Box-filters one channel of `plane` down to `width`×`height` (each output sample is the
    /// mean of the source samples it covers). Cost: one read per source sample.
    private static func scale(
        _ plane: Plane, channels: Int, channel: Int, into out: inout [UInt8],
        width: Int, height: Int, stride: Int
    ) {
        // Fast paths without a division per sample: the same size (a copy) and exactly half.
        if plane.width == width && plane.height == height {
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    let row = plane.row(y).assumingMemoryBound(to: UInt8.self)
                    let dst = o.baseAddress! + y * stride
                    if channels == 1 {
                        dst.update(from: row, count: width)
                    } else {
                        for x in 0..<width { dst[x] = row[x * channels + channel] }
                    }
                }
            }
            return
        }
        if plane.width == 2 * width && plane.height == 2 * height {
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    let r0 = plane.row(2 * y).assumingMemoryBound(to: UInt8.self) + channel
                    let r1 = plane.row(2 * y + 1).assumingMemoryBound(to: UInt8.self) + channel
                    let dst = o.baseAddress! + y * stride
                    for x in 0..<width {
                        let a = 2 * x * channels, b = a + channels
                        dst[x] = UInt8((Int(r0[a]) + Int(r0[b]) + Int(r1[a]) + Int(r1[b]) + 2) >> 2)
                    }
                }
            }
            return
        }
        let xs = (0...width).map { $0 * plane.width / width }
        let ys = (0...height).map { $0 * plane.height / height }
        out.withUnsafeMutableBufferPointer { o in
            xs.withUnsafeBufferPointer { xs in
                for oy in 0..<height {
                    let y0 = ys[oy], y1 = max(ys[oy + 1], y0 + 1)
                    for ox in 0..<width {
                        let x0 = xs[ox], x1 = max(xs[ox + 1], x0 + 1)
                        var sum = 0
                        for sy in y0..<y1 {
                            let row = plane.row(sy).assumingMemoryBound(to: UInt8.self)
                            for sx in x0..<x1 { sum &+= Int(row[sx * channels + channel]) }
                        }
                        let n = (y1 - y0) * (x1 - x0)
                        o[oy * stride + ox] = UInt8((sum + n / 2) / n)
                    }
                }
            }
        }
    }

    /// Samples RGBA at the output size (nearest source pixel) and converts to full-range
    /// BT.601 YCbCr, as JFIF defines it; chroma is the mean of each 2×2 block.
    private static func convertRGBA(
        _ plane: Plane, y: inout [UInt8], cb: inout [UInt8], cr: inout [UInt8],
        width: Int, height: Int, stride: Int
    ) {
        let cs = stride / 2
        for oy in 0..<height {
            let row = plane.row(oy * plane.height / height).assumingMemoryBound(to: UInt8.self)
            for ox in 0..<width {
                let px = row + (ox * plane.width / width) * 4
                let r = Float(px[0]), g = Float(px[1]), b = Float(px[2])
                y[oy * stride + ox] = UInt8(max(0, min(255, 0.299 * r + 0.587 * g + 0.114 * b + 0.5)))
                let ci = (oy / 2) * cs + ox / 2
                let u = -0.168736 * r - 0.331264 * g + 0.5 * b, v = 0.5 * r - 0.418688 * g - 0.081312 * b
                // Accumulate a quarter of each of the 2×2 pixels (the block starts from 128 at x, y even).
                if ox % 2 == 0 && oy % 2 == 0 {
                    cb[ci] = 128
                    cr[ci] = 128
                }
                cb[ci] = UInt8(max(0, min(255, Float(cb[ci]) + u / 4)))
                cr[ci] = UInt8(max(0, min(255, Float(cr[ci]) + v / 4)))
            }
        }
    }

    /// Repeats the last column and row into the padding.
    private static func pad(_ p: inout [UInt8], width: Int, height: Int, stride: Int, paddedHeight: Int) {
        guard width > 0, height > 0 else { return }
        for r in 0..<height where width < stride {
            let last = p[r * stride + width - 1]
            for c in width..<stride { p[r * stride + c] = last }
        }
        for r in height..<paddedHeight {
            for c in 0..<stride { p[r * stride + c] = p[(height - 1) * stride + c] }
        }
    }
}
