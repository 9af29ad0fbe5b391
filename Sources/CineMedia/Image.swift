// Image: a strided, planar picture backed by a shared pixel buffer.

/// A picture: size, pixel format and planes with strides, backed by a ``PixelBuffer``.
///
/// `Image` is a value that shares its buffer: copying an image copies no pixels, and a crop
/// (``cropped(x:y:width:height:)``) is a view into the same buffer. The producer of an image
/// writes its pixels before publishing it; once it has crossed an edge of a graph, it is
/// read-only by convention.
public struct Image: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Pixel format.
    public let format: PixelFormat
    /// Strides and offsets of the planes, relative to ``byteOffset``.
    public let layout: PlaneLayout
    /// The memory holding the planes.
    public let buffer: PixelBuffer
    /// Where this image starts in ``buffer`` (non-zero for views).
    public let byteOffset: Int

    /// Creates an image over `buffer`. The layout must fit in the buffer.
    public init(width: Int, height: Int, format: PixelFormat, layout: PlaneLayout,
                buffer: PixelBuffer, byteOffset: Int = 0) {
        precondition(width > 0 && height > 0, "image size must be positive, got \(width)x\(height)")
        precondition(byteOffset + layout.byteCount <= buffer.capacity, "layout does not fit its buffer")
        self.width = width
        self.height = height
        self.format = format
        self.layout = layout
        self.buffer = buffer
        self.byteOffset = byteOffset
    }

    /// Allocates a new image (not pooled) with GStreamer's default layout.
    public init(width: Int, height: Int, format: PixelFormat) {
        let layout = format.layout(width: width, height: height)
        self.init(width: width, height: height, format: format, layout: layout,
                  buffer: PixelBuffer(capacity: layout.byteCount))
    }

    /// Plane `index` (0 = luma or the only plane).
    public func plane(_ index: Int) -> Plane {
        precondition(index < format.planeCount, "\(format) has no plane \(index)")
        let size = format.planeSize(index, width: width, height: height)
        return Plane(buffer: buffer,
                     base: buffer.baseAddress + byteOffset + layout.offsets[index],
                     width: size.width, height: size.height,
                     stride: layout.strides[index], bytesPerSample: format.bytesPerSample(plane: index))
    }

    /// Whether the planes lie in one run of memory with GStreamer's default layout, so that
    /// the image can be copied or handed to GStreamer as one block.
    public var isContiguous: Bool {
        layout == format.layout(width: width, height: height)
    }

    /// A view of a rectangle of this image, sharing its buffer (no pixels copied).
    /// For 4:2:0 formats, `x` and `y` must be even.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Image {
        precondition(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= width && y + h <= height,
                     "crop \(w)x\(h)+\(x)+\(y) is outside the \(width)x\(height) image")
        precondition(!format.isSubsampled420 || (x % 2 == 0 && y % 2 == 0), "4:2:0 crops start on even pixels")
        let origin = layout.offsets[0] + y * layout.strides[0] + x * format.bytesPerSample(plane: 0)
        var offsets = SIMD4<Int>(repeating: 0)
        for p in 0..<format.planeCount {
            let sx = p > 0 && format.isSubsampled420 ? x / 2 : x
            let sy = p > 0 && format.isSubsampled420 ? y / 2 : y
            let start = layout.offsets[p] + sy * layout.strides[p] + sx * format.bytesPerSample(plane: p)
            offsets[p] = start - origin
        }
        let sizeLast = format.planeSize(format.planeCount - 1, width: w, height: h)
        let last = format.planeCount - 1
        let byteCount = offsets[last] + (sizeLast.height - 1) * layout.strides[last]
            + sizeLast.width * format.bytesPerSample(plane: last)
        let shifted = PlaneLayout(strides: layout.strides, offsets: offsets, byteCount: byteCount)
        return Image(width: w, height: h, format: format, layout: shifted, buffer: buffer,
                     byteOffset: byteOffset + origin)
    }

    /// A copy with GStreamer's default layout, in a buffer from `pool` (or a new one).
    public func copy(using pool: ImagePool? = nil) -> Image {
        let out = pool?.makeImage(width: width, height: height, format: format)
            ?? Image(width: width, height: height, format: format)
        out.copyPixels(from: self)
        return out
    }

    /// Copies the pixels of `source`, which must have the same size and format, into this image.
    /// Cost: one pass over the bytes (memcpy per row, or one memcpy when both are contiguous).
    public func copyPixels(from source: Image) {
        precondition(source.width == width && source.height == height && source.format == format,
                     "copyPixels needs images of the same size and format")
        if isContiguous && source.isContiguous {
            (buffer.baseAddress + byteOffset).copyMemory(
                from: source.buffer.baseAddress + source.byteOffset, byteCount: layout.byteCount)
            return
        }
        for p in 0..<format.planeCount {
            let dst = plane(p), src = source.plane(p)
            let rowBytes = dst.width * dst.bytesPerSample
            for y in 0..<dst.height { dst.row(y).copyMemory(from: src.row(y), byteCount: rowBytes) }
        }
    }
}

/// One plane of an ``Image``: a strided 2-D array of samples. Holds its buffer alive.
public struct Plane: @unchecked Sendable {
    /// Keeps the memory alive while the plane is used.
    public let buffer: PixelBuffer
    /// The first sample of the first row.
    public let base: UnsafeMutableRawPointer
    /// Width in samples.
    public let width: Int
    /// Height in rows.
    public let height: Int
    /// Bytes from one row to the next.
    public let stride: Int
    /// Bytes per sample.
    public let bytesPerSample: Int

    /// The first byte of row `y`.
    @inline(__always) public func row(_ y: Int) -> UnsafeMutableRawPointer { base + y * stride }

    /// Row `y` as typed samples.
    @inline(__always) public func row<T>(_ y: Int, as: T.Type) -> UnsafeMutablePointer<T> {
        (base + y * stride).assumingMemoryBound(to: T.self)
    }

    /// Sets every sample byte of the plane to `value`.
    public func fill(byte value: UInt8) {
        for y in 0..<height { row(y).initializeMemory(as: UInt8.self, repeating: value, count: width * bytesPerSample) }
    }
}
