// SceneBackground: the set (wall, sideboard, books, columns) painted once per view. The camera
// and the set never move, so every frame starts from a copy of these rows and only the people
// are painted over them — the same bytes as painting the set each frame, for a fraction of the work.
import CineMedia
import Foundation

/// Both views of the static set, before light and noise, and its ground-truth disparity.
final class SceneBackground: Sendable {
    /// Left and right view, I420, as the set paints them.
    let views: [Image]
    /// The left view's disparity (float32) where the set is the front-most surface.
    let truth: Image

    init(layers: UnsafeBufferPointer<SceneLayer>, width: Int, height: Int) {
        views = [Image(width: width, height: height, format: .i420), Image(width: width, height: height, format: .i420)]
        truth = Image(width: width, height: height, format: .float32)
        let rasterizer = SceneRasterizer(
            layers: layers, width: width, height: height, light: 256, noise: nil,
            noiseTable: SensorNoiseTable(standardDeviation: 0, width: width, seed: 0), frame: 0)
        let chromaRows = (height + 1) / 2
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SceneRasterizer.scratchCount) { scratch in
            for view in 0..<2 {
                let image = views[view]
                rasterizer.render(
                    view: view, chromaRows: 0..<chromaRows, luma: image.plane(0), cb: image.plane(1), cr: image.plane(2),
                    groundTruth: view == 0 ? truth.plane(0) : nil, background: nil, scratch: scratch.baseAddress!)
            }
        }
    }
}

/// Makes the background on the first frame and keeps it (scenes made only for their schedule
/// never pay for it).
final class SceneBackgroundCache: @unchecked Sendable {
    private let lock = NSLock()
    private var value: SceneBackground?

    func get(_ make: () -> SceneBackground) -> SceneBackground {
        lock.withLock {
            if let value { return value }
            let made = make()
            value = made
            return made
        }
    }
}
