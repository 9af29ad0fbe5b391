// SceneTexture: one square I420 texture tile (luma plus half-resolution chroma), painted once
// and read by the rasterizer through raw pointers.

/// A square texture tile stored the way the frames are: a `size` × `size` luma plane and two
/// `size/2` × `size/2` chroma planes, so rendering never converts colours.
///
/// Immutable after `init`; the memory lives as long as the tile (the shared
/// ``SceneTextureLibrary`` keeps every tile for the life of the process).
final class SceneTexture: @unchecked Sendable {
    /// Width and height of the luma plane in texels; a power of two between 4 and ``maximumSize``.
    let size: Int
    private let memory: UnsafeMutablePointer<UInt8>

    /// The largest tile the rasterizer's scratch rows hold.
    static let maximumSize = 1024

    /// Paints a tile: `paint(x, y)` gives the colour of texel `(x, y)` (0 ..< size). Luma takes
    /// each texel's colour; chroma the average colour of each 2 × 2 block.
    init(size: Int, paint: (Double, Double) -> SceneColor) {
        precondition(
            size >= 4 && size <= SceneTexture.maximumSize && size & (size - 1) == 0,
            "texture tiles are square powers of two up to \(SceneTexture.maximumSize), got \(size)")
        self.size = size
        let half = size / 2
        memory = UnsafeMutablePointer<UInt8>.allocate(capacity: size * size + 2 * half * half)
        let luma = memory, cb = memory + size * size, cr = cb + half * half
        for by in 0..<half {
            for bx in 0..<half {
                var sum = SceneColor(0, 0, 0)
                for dy in 0..<2 {
                    for dx in 0..<2 {
                        let x = 2 * bx + dx, y = 2 * by + dy
                        let color = paint(Double(x), Double(y))
                        luma[y * size + x] = color.luma
                        sum = sum + color
                    }
                }
                let mean = sum * 0.25
                cb[by * half + bx] = mean.cb
                cr[by * half + bx] = mean.cr
            }
        }
    }

    deinit { memory.deallocate() }

    /// Raw pointers to the planes, for the rasterizer.
    var view: TextureView {
        let half = size / 2
        return TextureView(
            luma: UnsafePointer(memory), cb: UnsafePointer(memory + size * size),
            cr: UnsafePointer(memory + size * size + half * half), size: size)
    }
}

/// The planes of a ``SceneTexture`` as plain pointers: a trivial value the per-frame layer list
/// can hold on the stack without reference counting.
///
/// `@unchecked Sendable`: the pointers refer to immutable memory owned by a tile of the shared
/// library, which outlives every scene.
struct TextureView: @unchecked Sendable {
    /// `size` × `size` luma texels, row-major.
    let luma: UnsafePointer<UInt8>
    /// `size/2` × `size/2` blue-difference texels.
    let cb: UnsafePointer<UInt8>
    /// `size/2` × `size/2` red-difference texels.
    let cr: UnsafePointer<UInt8>
    /// Luma width and height in texels (a power of two).
    let size: Int
}
