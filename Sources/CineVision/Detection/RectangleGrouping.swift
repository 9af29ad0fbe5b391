// RectangleGrouping: OpenCV's groupRectangles — cluster similar candidate windows, average
// each cluster, keep clusters with more than minNeighbors members, drop small ones inside big ones.

/// Groups the raw windows of a cascade into detections, exactly as OpenCV's
/// `groupRectangles(rects, groupThreshold, eps)`.
public enum RectangleGrouping {
    /// Two rectangles are similar when every edge moves by at most
    /// `eps · (min(w₁,w₂) + min(h₁,h₂)) / 2`.
    @inline(__always)
    static func similar(_ a: CascadeRect, _ b: CascadeRect, eps: Double) -> Bool {
        let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
        return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
            && Double(abs(a.x + a.width - b.x - b.width)) <= delta
            && Double(abs(a.y + a.height - b.y - b.height)) <= delta
    }

    /// Clusters `rects` (transitively similar ones together), averages each cluster and keeps
    /// those with more than `minNeighbors` members that are not inside a stronger cluster.
    /// With `minNeighbors ≤ 0` the rectangles are returned unchanged, as OpenCV does.
    /// - Returns: the grouped rectangles and, for each, its number of members.
    public static func group(_ rects: [CascadeRect], minNeighbors: Int, eps: Double = 0.2)
        -> (rects: [CascadeRect], neighbors: [Int]) {
        if minNeighbors <= 0 || rects.isEmpty { return (rects, [Int](repeating: 1, count: rects.count)) }
        let (classOf, classes) = partition(rects, eps: eps)
        return average(rects, classOf: classOf, classes: classes, minNeighbors: minNeighbors, eps: eps)
    }

    /// The clusters of transitively similar rectangles: each rectangle's cluster (0 ..< the
    /// number of clusters, numbered in order of first member), as OpenCV's `partition()`.
    public static func partition(_ rects: [CascadeRect], eps: Double = 0.2) -> (classOf: [Int], classes: Int) {
        let n = rects.count
        // Union-find over similar pairs (O(n²) tests, like OpenCV's partition()).
        var parent = [Int](0..<n)
        func root(_ i: Int) -> Int {
            var r = i
            while parent[r] != r { r = parent[r] }
            var j = i
            while parent[j] != r { let next = parent[j]; parent[j] = r; j = next }
            return r
        }
        for i in 0..<n {
            for j in 0..<i where similar(rects[i], rects[j], eps: eps) {
                let a = root(i), b = root(j)
                if a != b { parent[a] = b }
            }
        }
        var label = [Int](repeating: -1, count: n)
        var classOf = [Int](repeating: 0, count: n)
        var classes = 0
        for i in 0..<n {
            let r = root(i)
            if label[r] < 0 { label[r] = classes; classes += 1 }
            classOf[i] = label[r]
        }
        return (classOf, classes)
    }

    /// Averages each of `classes` clusters of `rects` (`classOf` gives each one's) and keeps
    /// those with more than `minNeighbors` members that are not inside a stronger cluster
    /// (OpenCV's `groupRectangles` after its partition).
    public static func average(_ rects: [CascadeRect], classOf: [Int], classes: Int, minNeighbors: Int, eps: Double = 0.2)
        -> (rects: [CascadeRect], neighbors: [Int]) {
        let n = rects.count
        var sx = [Int](repeating: 0, count: classes), sy = sx, sw = sx, sh = sx, count = sx
        for i in 0..<n {
            let c = classOf[i]
            sx[c] += rects[i].x; sy[c] += rects[i].y; sw[c] += rects[i].width; sh[c] += rects[i].height
            count[c] += 1
        }
        var avg = [CascadeRect]()
        avg.reserveCapacity(classes)
        for c in 0..<classes {
            let s = 1 / Float(count[c])
            func r(_ v: Int) -> Int { Int((Float(v) * s).rounded(.toNearestOrEven)) }
            avg.append(CascadeRect(x: r(sx[c]), y: r(sy[c]), width: r(sw[c]), height: r(sh[c])))
        }
        var out: [CascadeRect] = [], neighbors: [Int] = []
        for i in 0..<classes {
            let r1 = avg[i], n1 = count[i]
            if n1 <= minNeighbors { continue }
            var inside = false
            for j in 0..<classes where j != i && count[j] > minNeighbors {
                let r2 = avg[j], n2 = count[j]
                let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven))
                let dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
                if r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
                    && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3) {
                    inside = true
                    break
                }
            }
            if !inside {
                out.append(r1)
                neighbors.append(n1)
            }
        }
        return (out, neighbors)
    }
}
