// PixelBuffer: aligned memory for pixels, owned by a pool or by one image.

/// A block of 64-byte aligned memory that holds the planes of one or more images.
///
/// Buffers are reference types so that images share them without copying; a pool reuses a
/// buffer once no image refers to it any more. Writers fill a buffer before they publish
/// the image that refers to it; after that, readers only read.
public final class PixelBuffer: @unchecked Sendable {
    /// The first byte.
    public let baseAddress: UnsafeMutableRawPointer
    /// The usable size in bytes.
    public let capacity: Int

    /// Allocates `capacity` bytes, aligned to 64 bytes (a cache line, and any SIMD width).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.baseAddress = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 64)
    }

    deinit { baseAddress.deallocate() }
}
