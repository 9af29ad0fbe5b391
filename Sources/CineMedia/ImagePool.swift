// ImagePool: reuses pixel buffers so that steady-state processing allocates nothing.
import Synchronization

/// A pool of pixel buffers for images of any size.
///
/// `makeImage` returns an image backed by a buffer that no other image refers to. A buffer
/// becomes free again when the last image holding it is dropped — detected with
/// `isKnownUniquelyReferenced`, so returning a buffer costs nothing and needs no callback.
/// In a steady stream of same-sized frames the pool stops allocating once it holds as
/// many buffers as there are frames in flight.
public final class ImagePool: Sendable {
    private struct State {
        var buffers: [PixelBuffer] = []
        var allocations = 0
    }
    private let state = Mutex(State())
    private let limit: Int

    /// Creates a pool that keeps at most `limit` idle buffers for reuse.
    public init(limit: Int = 64) { self.limit = limit }

    /// How many buffers this pool has allocated in its lifetime.
    public var allocationCount: Int { state.withLock { $0.allocations } }

    /// A buffer of at least `byteCount` bytes that no image refers to.
    public func makeBuffer(byteCount: Int) -> PixelBuffer {
        state.withLock { s in
            for i in s.buffers.indices where s.buffers[i].capacity >= byteCount {
                if isKnownUniquelyReferenced(&s.buffers[i]) { return s.buffers[i] }
            }
            let buffer = PixelBuffer(capacity: byteCount)
            s.allocations += 1
            if s.buffers.count < limit {
                s.buffers.append(buffer)
            } else if let idle = s.buffers.indices.first(where: { isKnownUniquelyReferenced(&s.buffers[$0]) }) {
                s.buffers[idle] = buffer
            }
            return buffer
        }
    }

    /// A new image with GStreamer's default layout, backed by a reused buffer when one is free.
    /// Its pixels are undefined until written.
    public func makeImage(width: Int, height: Int, format: PixelFormat) -> Image {
        let layout = format.layout(width: width, height: height)
        return Image(width: width, height: height, format: format, layout: layout,
                     buffer: makeBuffer(byteCount: layout.byteCount))
    }
}
