// TappedObjectFinder: the object under a tapped point — a region grown from the point over
// pixels of a similar colour, stopped by edges and, where there is a disparity map, by depth.
import CineMedia

/// Finds the extent of the object under a normalised point, with or without a disparity map.
///
/// The frame is sampled onto a grid at most ``gridWidth`` cells wide (each cell the mean of the
/// pixels under it; chroma from the cell's centre). From the cell at the point (the cell in its
/// 3 × 3 neighbourhood closest to the neighbourhood's median colour, so a tap on a thin seam
/// still starts on the object), 4-connected cells join while
/// - their colour is within ``seedTolerance`` of the seed's (luma, and ``chromaTolerance`` for
///   chroma: shading varies luma more than hue),
/// - and within ``stepTolerance`` of the neighbour they grow from (an edge stops the growth) —
///   or, three cells away, within half the seed tolerance (the growth hops a thin seam or stripe),
/// - and, with a disparity map, their disparity is within ``disparityTolerance`` (relative) of
///   the seed's (an object in front of a wall of its own colour stays separate).
/// A region over ``maxAreaFraction`` of the frame is background; under ``minCells`` cells, noise.
public struct TappedObjectFinder: Sendable {
    /// What was found.
    public struct Result: Sendable, Hashable {
        /// The region's bounds, normalised.
        public var bounds: NormalizedRect
        /// The region's median disparity (full-resolution pixels), when there is a map.
        public var disparity: Double?
        /// The share of the frame the region covers.
        public var areaFraction: Double
    }

    /// Cells across the working grid.
    public var gridWidth = 640
    /// Largest luma difference from the seed (levels).
    public var seedTolerance = 70.0
    /// Largest chroma difference from the seed (U and V each, levels).
    public var chromaTolerance = 22.0
    /// Largest luma step between neighbouring cells (levels).
    public var stepTolerance = 14.0
    /// Largest relative disparity difference from the seed.
    public var disparityTolerance = 0.06
    /// Regions larger than this share of the frame are background.
    public var maxAreaFraction = 0.3
    /// Regions smaller than this many cells are noise.
    public var minCells = 12

    /// Creates a finder with the default tolerances.
    public init() {}

    /// The cells a region grows to from each of its cells.
    private static let steps = [(-1, 0), (1, 0), (0, -1), (0, 1), (-3, 0), (3, 0), (0, -3), (0, 3)]

    /// The object at `point` of `image` (I420, NV12 or gray8), or `nil` when there is none.
    public func find(at point: NormalizedPoint, in image: Image, disparity map: DisparityMap? = nil) -> Result? {
        guard point.x >= 0, point.x <= 1, point.y >= 0, point.y <= 1 else { return nil }
        let W = Double(image.width), H = Double(image.height)
        let gw = min(gridWidth, image.width), gh = max(1, Int((Double(gw) * H / W).rounded()))
        let luma = AppearanceTracker.sample(image, x: 0, y: 0, w: W, h: H, cols: gw, rows: gh)
        let chroma = AppearanceTracker.chromaGrid(image, x: 0, y: 0, w: W, h: H, cols: gw, rows: gh)
        let depth: [Float]? = map.map { m in
            let plane = m.values.plane(0), mw = m.values.width, mh = m.values.height
            var d = [Float](repeating: .nan, count: gw * gh)
            for j in 0..<gh {
                let row = plane.row(min(mh - 1, (2 * j + 1) * mh / (2 * gh)), as: Float.self)
                for i in 0..<gw { d[j * gw + i] = row[min(mw - 1, (2 * i + 1) * mw / (2 * gw))] }
            }
            return d
        }
        let px = min(gw - 1, Int(point.x * Double(gw))), py = min(gh - 1, Int(point.y * Double(gh)))
        // The seed: the neighbourhood's cell nearest its median colour.
        var around: [Int] = []
        for y in max(0, py - 1)...min(gh - 1, py + 1) {
            for x in max(0, px - 1)...min(gw - 1, px + 1) { around.append(y * gw + x) }
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let my = median(around.map { Double(luma[$0]) }), mu = median(around.map { chroma.u[$0] }),
            mv = median(around.map { chroma.v[$0] })
        let seed = around.min {
            abs(Double(luma[$0]) - my) + abs(chroma.u[$0] - mu) + abs(chroma.v[$0] - mv)
                < abs(Double(luma[$1]) - my) + abs(chroma.u[$1] - mu) + abs(chroma.v[$1] - mv)
        }!
        let sy = Double(luma[seed]), su = chroma.u[seed], sv = chroma.v[seed]
        var sd: Float? = nil
        if let depth {
            let near = around.map { depth[$0] }.filter(\.isFinite)
            if !near.isEmpty { sd = near.sorted()[near.count / 2] }
        }
        var visited = [Bool](repeating: false, count: gw * gh)
        var queue = [Int](repeating: 0, count: gw * gh)
        var head = 0, tail = 0
        queue[tail] = seed
        tail += 1
        visited[seed] = true
        let maxCells = Int(maxAreaFraction * Double(gw * gh))
        var minX = gw, minY = gh, maxX = -1, maxY = -1
        var disparities: [Float] = []
        while head < tail {
            let i = queue[head]
            head += 1
            let x = i % gw, y = i / gw
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            if let depth, depth[i].isFinite { disparities.append(depth[i]) }
            if tail > maxCells { return nil }
            let l = Double(luma[i])
            // Neighbours, and cells three away: growth hops a seam or a stripe a cell or two wide
            // (a ball's band, a mug's print) when the colour on the far side is the seed's again.
            for (dx, dy) in Self.steps {
                let nx = x + dx, ny = y + dy
                guard nx >= 0, ny >= 0, nx < gw, ny < gh else { continue }
                let j = ny * gw + nx
                guard !visited[j] else { continue }
                let lj = Double(luma[j])
                let hop = abs(dx) + abs(dy) > 1
                guard abs(lj - sy) <= (hop ? 0.5 : 1) * seedTolerance, hop || abs(lj - l) <= stepTolerance,
                      abs(chroma.u[j] - su) <= chromaTolerance, abs(chroma.v[j] - sv) <= chromaTolerance
                else { continue }
                if let depth, let sd, depth[j].isFinite, abs(depth[j] - sd) > Float(disparityTolerance) * sd { continue }
                visited[j] = true
                queue[tail] = j
                tail += 1
            }
        }
        guard tail >= minCells else { return nil }
        let G = Double(gw), GH = Double(gh)
        return Result(
            bounds: NormalizedRect(x: Double(minX) / G, y: Double(minY) / GH, width: Double(maxX - minX + 1) / G,
                                   height: Double(maxY - minY + 1) / GH),
            disparity: disparities.isEmpty ? nil : Double(disparities.sorted()[disparities.count / 2]),
            areaFraction: Double(tail) / Double(gw * gh))
    }
}
