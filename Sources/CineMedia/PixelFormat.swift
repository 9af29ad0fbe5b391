// Pixel formats and the plane layout of each, matching GStreamer's default layout so that
// buffers cross the bridge with one copy or none.

/// The pixel formats cinegraph processes.
public enum PixelFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 8-bit RGBA, one interleaved plane.
    case rgba8
    /// 8-bit luma only.
    case gray8
    /// Y plane plus interleaved half-resolution UV plane.
    case nv12
    /// Y, U and V planes, chroma at half resolution in both directions.
    case i420
    /// 16-bit luma only (little endian), used for disparity tracks.
    case gray16
    /// 32-bit float, one channel (disparity maps).
    case float32

    /// The number of planes.
    public var planeCount: Int {
        switch self {
        case .rgba8, .gray8, .gray16, .float32: return 1
        case .nv12: return 2
        case .i420: return 3
        }
    }

    /// Bytes per sample in `plane` (an NV12 UV pair counts as one 2-byte sample).
    public func bytesPerSample(plane: Int) -> Int {
        switch self {
        case .rgba8, .float32: return 4
        case .gray8, .i420: return 1
        case .gray16: return 2
        case .nv12: return plane == 0 ? 1 : 2
        }
    }

    /// Whether chroma planes are subsampled by 2 in both directions.
    public var isSubsampled420: Bool { self == .nv12 || self == .i420 }

    /// The size in samples of `plane` for an image of `width` × `height`.
    public func planeSize(_ plane: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        if plane > 0 && isSubsampled420 { return ((width + 1) / 2, (height + 1) / 2) }
        return (width, height)
    }

    /// The GStreamer caps format name, when GStreamer has one.
    public var gstreamerName: String? {
        switch self {
        case .rgba8: return "RGBA"
        case .gray8: return "GRAY8"
        case .nv12: return "NV12"
        case .i420: return "I420"
        case .gray16: return "GRAY16_LE"
        case .float32: return nil
        }
    }

    /// The format with the given GStreamer caps name.
    public init?(gstreamerName: String) {
        guard let f = PixelFormat.allCases.first(where: { $0.gstreamerName == gstreamerName }) else { return nil }
        self = f
    }

    public var description: String { rawValue }

    /// GStreamer's default layout: strides rounded up to 4 bytes, planes packed one after another.
    public func layout(width: Int, height: Int) -> PlaneLayout {
        func up4(_ v: Int) -> Int { (v + 3) & ~3 }
        var strides = SIMD4<Int>(repeating: 0)
        var offsets = SIMD4<Int>(repeating: 0)
        var offset = 0
        for p in 0..<planeCount {
            let size = planeSize(p, width: width, height: height)
            let stride: Int
            switch self {
            case .rgba8, .float32: stride = size.width * bytesPerSample(plane: p)
            case .nv12: stride = up4(p == 0 ? width : size.width * 2)
            default: stride = up4(size.width * bytesPerSample(plane: p))
            }
            strides[p] = stride
            offsets[p] = offset
            offset += stride * size.height
        }
        return PlaneLayout(strides: strides, offsets: offsets, byteCount: offset)
    }
}

/// Where each plane of an image lives in its buffer.
public struct PlaneLayout: Sendable, Equatable {
    /// Bytes from one row to the next, per plane (unused planes are 0).
    public var strides: SIMD4<Int>
    /// Byte offset of each plane from the start of the image.
    public var offsets: SIMD4<Int>
    /// Bytes from the first plane's start to the end of the last plane.
    public var byteCount: Int

    /// Creates a layout.
    public init(strides: SIMD4<Int>, offsets: SIMD4<Int>, byteCount: Int) {
        self.strides = strides
        self.offsets = offsets
        self.byteCount = byteCount
    }
}
