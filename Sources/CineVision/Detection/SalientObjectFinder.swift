// SalientObjectFinder: "tracking focus at a point" — grow a region of similar disparity from
// a tapped point, stopped by image edges, and return the object's bounds and disparity.
import CineMedia

/// Finds the object under a normalised point by region growing in the disparity map.
///
/// From the seed (the median disparity of a 5×5 patch at the point), 4-connected samples join
/// while their disparity stays within ``relativeTolerance`` of the seed and within
/// ``stepTolerance`` of their neighbour, and while the luma gradient there is below
/// ``edgeThreshold`` (object outlines stop the growth). A region larger than
/// ``maxAreaFraction`` of the frame is background, not an object.
public struct SalientObjectFinder: Sendable {
    /// What was found.
    public struct Result: Sendable, Hashable {
        /// Bounds of the region, normalised.
        public var bounds: NormalizedRect
        /// Median disparity of the region (full-resolution pixels).
        public var disparity: Double
        /// Fraction of the frame the region covers.
        public var areaFraction: Double
    }

    /// Disparity tolerance around the seed, relative (0.12 = ±12 %), at least 1 pixel.
    public var relativeTolerance = 0.12
    /// Largest disparity step between neighbours, relative to the seed, at least 0.5 pixel.
    public var stepTolerance = 0.04
    /// Luma gradient (|dx|+|dy|, 0…510) that stops growth; 0 disables the edge test.
    public var edgeThreshold = 90
    /// Regions larger than this fraction of the frame are rejected as background.
    public var maxAreaFraction = 0.45
    /// Regions smaller than this fraction are rejected as noise.
    public var minAreaFraction = 0.0005

    /// Creates a finder with the default tolerances.
    public init() {}

    /// The object at `point` (normalised 0…1), or `nil` when there is none (invalid disparity,
    /// background, or too small). `seedDisparity` replaces the seed (used when tracking).
    /// Cost: one visit per grown sample (≈ 10 ops), bounded by the map size.
    public func find(atNormalized px: Double, _ py: Double, disparity map: DisparityMap, luma: Image? = nil,
                     seedDisparity: Double? = nil) -> Result? {
        let w = map.values.width, h = map.values.height
        guard px >= 0, px <= 1, py >= 0, py <= 1 else { return nil }
        let sx = min(w - 1, Int(px * Double(w))), sy = min(h - 1, Int(py * Double(h)))
        let plane = map.values.plane(0)
        var seed = seedDisparity
        if seed == nil {
            var patch: [Float] = []
            for y in max(0, sy - 2)...min(h - 1, sy + 2) {
                let row = plane.row(y, as: Float.self)
                for x in max(0, sx - 2)...min(w - 1, sx + 2) where row[x].isFinite { patch.append(row[x]) }
            }
            guard !patch.isEmpty else { return nil }
            seed = Double(patch.sorted()[patch.count / 2])
        }
        guard let d0 = seed, d0 > 0 else { return nil }
        let tol = Float(max(1, relativeTolerance * d0)), step = Float(max(0.5, stepTolerance * d0))
        let seedF = Float(d0)
        let lumaPlane = luma.map { $0.plane(0) }
        let lw = luma?.width ?? 1, lh = luma?.height ?? 1
        let edge = Int32(edgeThreshold)
        @inline(__always) func isEdge(_ x: Int, _ y: Int) -> Bool {
            guard let lp = lumaPlane, edge > 0 else { return false }
            let lx = min(lw - 2, x * lw / w), ly = min(lh - 2, y * lh / h)
            let r0 = lp.row(ly, as: UInt8.self), r1 = lp.row(ly + 1, as: UInt8.self)
            return abs(Int32(r0[lx + 1]) - Int32(r0[lx])) + abs(Int32(r1[lx]) - Int32(r0[lx])) >= edge
        }
        // Start from the sample nearest the point whose disparity fits the seed.
        var start = -1
        search: for r in 0...4 {
            for y in max(0, sy - r)...min(h - 1, sy + r) {
                let row = plane.row(y, as: Float.self)
                for x in max(0, sx - r)...min(w - 1, sx + r) where row[x].isFinite && abs(row[x] - seedF) <= tol {
                    start = y * w + x
                    break search
                }
            }
        }
        guard start >= 0 else { return nil }
        var visited = [Bool](repeating: false, count: w * h)
        var queue = [Int32](repeating: 0, count: w * h)
        var head = 0, tail = 0
        queue[tail] = Int32(start); tail += 1
        visited[start] = true
        var minX = w, minY = h, maxX = -1, maxY = -1
        var values: [Float] = []
        let maxCount = Int(maxAreaFraction * Double(w * h))
        while head < tail {
            let i = Int(queue[head]); head += 1
            let x = i % w, y = i / w
            let d = plane.row(y, as: Float.self)[x]
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            if values.count < 4096 || head % 8 == 0 { values.append(d) }
            if tail > maxCount { return nil }
            @inline(__always) func visit(_ nx: Int, _ ny: Int) {
                guard nx >= 0, ny >= 0, nx < w, ny < h else { return }
                let j = ny * w + nx
                if visited[j] { return }
                let dn = plane.row(ny, as: Float.self)[nx]
                guard dn.isFinite, abs(dn - seedF) <= tol, abs(dn - d) <= step else { return }
                visited[j] = true
                if isEdge(nx, ny) { return }
                queue[tail] = Int32(j)
                tail += 1
            }
            visit(x - 1, y)
            visit(x + 1, y)
            visit(x, y - 1)
            visit(x, y + 1)
        }
        let fraction = Double(tail) / Double(w * h)
        guard fraction >= minAreaFraction else { return nil }
        let W = Double(w), H = Double(h)
        return Result(bounds: NormalizedRect(x: Double(minX) / W, y: Double(minY) / H, width: Double(maxX - minX + 1) / W,
                                             height: Double(maxY - minY + 1) / H),
                      disparity: Double(values.sorted()[values.count / 2]), areaFraction: fraction)
    }
}
