// StabilizationCorrection: what the stabilizer does to one frame — the smoothing correction and
// the crop-zoom — and the mappings between captured and stabilized pixels that the warp and any
// frame-aligned stream (disparity, detections) share.

import CineMedia

/// The correction of one frame: a similarity that moves the captured frame onto the smoothed
/// camera path, followed by a zoom about the centre that hides the borders.
///
/// Coordinates are full-resolution pixels from the frame centre, as in ``SimilarityTransform``.
public struct StabilizationCorrection: Sendable, Equatable {
    /// Index of the frame in its stream (0 = first frame pushed).
    public var frameIndex: Int
    /// Carries captured-frame points to the stabilized (unzoomed) frame.
    public var stabilizing: SimilarityTransform
    /// Zoom about the centre applied after ``stabilizing`` (`1 / (1 − crop)`; 1 = no crop).
    public var zoom: Double

    /// Creates a correction.
    public init(frameIndex: Int, stabilizing: SimilarityTransform, zoom: Double) {
        self.frameIndex = frameIndex
        self.stabilizing = stabilizing
        self.zoom = zoom
    }

    /// The correction that leaves a frame unchanged.
    public static func identity(frameIndex: Int) -> StabilizationCorrection {
        StabilizationCorrection(frameIndex: frameIndex, stabilizing: .identity, zoom: 1)
    }

    /// Carries captured-frame points to output points (``stabilizing`` then the zoom).
    public var outputFromSource: SimilarityTransform {
        SimilarityTransform(a: zoom, b: 0, dx: 0, dy: 0).after(stabilizing)
    }

    /// Carries output points back to the captured-frame points they show — what the warp samples.
    public var sourceFromOutput: SimilarityTransform { outputFromSource.inverse }

    /// Where the captured pixel position `(x, y)` (top-left origin, pixel centres at `i + 0.5`)
    /// lands in the stabilized output of a `width` × `height` frame. Use it to move detection
    /// bounds and any other frame-aligned geometry with the video.
    public func outputPoint(x: Double, y: Double, width: Int, height: Int) -> (x: Double, y: Double) {
        let hw = Double(width) / 2, hh = Double(height) / 2
        let p = outputFromSource.apply(x: x - hw, y: y - hh)
        return (p.x + hw, p.y + hh)
    }

    /// The captured-frame rectangle (top-left origin, sample coordinates: pixel `i` at `i`) that
    /// the luma of the output reads, as the bounding box of the output corners' sources.
    public func sampledSourceBounds(width: Int, height: Int) -> (minX: Double, maxX: Double, minY: Double, maxY: Double)
    {
        let hw = Double(width) / 2, hh = Double(height) / 2
        let map = sourceFromOutput
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for (cx, cy) in [(-1.0, -1.0), (1, -1), (-1, 1), (1, 1)] {
            let p = map.apply(x: cx * (hw - 0.5), y: cy * (hh - 0.5))
            minX = min(minX, p.x + hw - 0.5)
            maxX = max(maxX, p.x + hw - 0.5)
            minY = min(minY, p.y + hh - 0.5)
            maxY = max(maxY, p.y + hh - 0.5)
        }
        return (minX, maxX, minY, maxY)
    }

    /// Whether every output sample (luma and chroma) reads inside the captured frame, keeping
    /// `margin` pixels from the last pixel centre.
    public func staysInside(width: Int, height: Int, margin: Double = 0) -> Bool {
        let b = sampledSourceBounds(width: width, height: height)
        let eps = 1e-9
        return b.minX >= margin - eps && b.minY >= margin - eps
            && b.maxX <= Double(width - 1) - margin + eps && b.maxY <= Double(height - 1) - margin + eps
    }

    /// A normalised rectangle (0…1, top-left origin) of a `width` × `height` frame moved with
    /// the video: the bounding box of its mapped corners, clipped to the frame (a rectangle that
    /// leaves the output entirely keeps zero width or height). Use it for detection bounds.
    public func outputRect(_ rect: NormalizedRect, width: Int, height: Int) -> NormalizedRect {
        let w = Double(width), h = Double(height)
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        let xs: [Double] = [rect.x, rect.x + rect.width], ys: [Double] = [rect.y, rect.y + rect.height]
        for nx in xs {
            for ny in ys {
                let p = outputPoint(x: nx * w, y: ny * h, width: width, height: height)
                minX = min(minX, p.x / w)
                maxX = max(maxX, p.x / w)
                minY = min(minY, p.y / h)
                maxY = max(maxY, p.y / h)
            }
        }
        let x0 = min(max(minX, 0), 1), x1 = min(max(maxX, 0), 1)
        let y0 = min(max(minY, 0), 1), y1 = min(max(maxY, 0), 1)
        return NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The detections of a `width` × `height` frame moved with the video: bounds through
    /// ``outputRect(_:width:height:)`` (clipped to the frame), disparities multiplied by the
    /// correction's overall scale (as ``StabilizationWarp`` does for disparity maps). Detections
    /// that the crop leaves entirely outside the output are dropped.
    public func outputDetections(_ detections: Detections, width: Int, height: Int) -> Detections {
        let scale = outputFromSource.scale
        return detections.compactMap { d in
            var moved = d
            moved.bounds = outputRect(d.bounds, width: width, height: height)
            guard moved.bounds.width > 0, moved.bounds.height > 0 else { return nil }
            moved.disparity = d.disparity.map { $0 * scale }
            return moved
        }
    }
}
