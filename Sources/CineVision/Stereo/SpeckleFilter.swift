// SpeckleFilter: removes small connected regions ("speckles") from a disparity map, by runs —
// each row is cut into runs of connected pixels, runs of neighbouring rows are merged with a
// union-find, and the regions that stay smaller than the window are invalidated.

/// Speckle removal for a processing-resolution disparity map (negative values are invalid),
/// with the scratch memory it reuses from frame to frame.
///
/// Two valid 4-neighbours are connected when their disparities differ by at most `range`; a
/// region is a connected component of that graph, and every region smaller than `maxSize`
/// pixels is invalidated (disparity −1, confidence 0). The result is exactly that of a flood
/// fill from every pixel (OpenCV's `filterSpeckles`), but the work is per run, not per pixel
/// and neighbour:
/// 1. Per row, one pass cuts the row into runs: maximal stretches of valid pixels, each
///    connected to the one before it.
/// 2. Per pair of rows, the two rows' runs are walked in order; a run above and a run below
///    that overlap are merged (a union-find over runs, with path halving) as soon as one
///    column of the overlap is connected — usually the first one looked at.
/// 3. Region sizes are summed per root, and the runs of small regions are cleared.
///
/// Cost: ≈ 2 compares per pixel to cut the runs (predictable branches in smooth maps), then
/// a few operations per pair of overlapping runs; memory: 4 Int32 per run.
final class SpeckleFilter: @unchecked Sendable {
    /// Width and height of the maps this filter takes.
    let width: Int
    let height: Int

    /// Per run: first column, end column (exclusive), union-find parent, region size.
    private let start, end, parent, size: UnsafeMutablePointer<Int32>
    /// The first run of every row (`height + 1` entries).
    private let rowFirst: UnsafeMutablePointer<Int32>

    /// Scratch for maps of `width` × `height`.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let n = width * height
        start = .allocate(capacity: n)
        end = .allocate(capacity: n)
        parent = .allocate(capacity: n)
        size = .allocate(capacity: n)
        rowFirst = .allocate(capacity: height + 1)
    }

    deinit {
        for p in [start, end, parent, size, rowFirst] { p.deallocate() }
    }

    /// The root of run `i`'s region (path halving).
    @inline(__always) private func find(_ i: Int32) -> Int32 {
        var i = i
        while parent[Int(i)] != i {
            let grand = parent[Int(parent[Int(i)])]
            parent[Int(i)] = grand
            i = grand
        }
        return i
    }

    /// Invalidates the regions of `d` smaller than `maxSize` pixels (see the type's summary):
    /// their disparity becomes −1 and their confidence 0.
    func apply(_ d: UnsafeMutablePointer<Float>, confidence conf: UnsafeMutablePointer<UInt8>, maxSize: Int, range: Float) {
        let w = width, h = height
        var count: Int32 = 0
        for y in 0..<h {
            let row = d + y &* w
            rowFirst[y] = count
            // 1. Runs of this row.
            var x = 0
            while x < w {
                var previous = row[x]
                if previous < 0 { x &+= 1; continue }
                let id = count
                count &+= 1
                start[Int(id)] = Int32(x)
                parent[Int(id)] = id
                x &+= 1
                while x < w {
                    let v = row[x]
                    if !(v >= 0 && abs(v - previous) <= range) { break }
                    previous = v
                    x &+= 1
                }
                end[Int(id)] = Int32(x)
            }
            // 2. Merge with the runs above: walk both rows' runs in order; where a run above and
            // a run here overlap, look for one connected column (usually the first) and merge.
            if y > 0 {
                let up = row - w
                var i = Int(rowFirst[y &- 1]), j = Int(rowFirst[y])
                let iEnd = j, jEnd = Int(count)
                while i < iEnd && j < jEnd {
                    let lo = Int(Swift.max(start[i], start[j])), hi = Int(Swift.min(end[i], end[j]))
                    var x = lo
                    while x < hi && abs(row[x] - up[x]) > range { x &+= 1 }
                    if x < hi {
                        let p = find(Int32(i)), q = find(Int32(j))
                        if p != q { parent[Int(Swift.max(p, q))] = Swift.min(p, q) }
                    }
                    // Advance whichever run ends first (both when they end together).
                    let ei = end[i], ej = end[j]
                    if ei <= ej { i &+= 1 }
                    if ej <= ei { j &+= 1 }
                }
            }
        }
        rowFirst[h] = count

        // 3. Region sizes, then clear the small regions' runs.
        let runs = Int(count)
        size.update(repeating: 0, count: runs)
        for i in 0..<runs { size[Int(find(Int32(i)))] &+= end[i] &- start[i] }
        let limit = Int32(clamping: maxSize)
        for y in 0..<h {
            let row = d + y &* w, crow = conf + y &* w
            for i in Int(rowFirst[y])..<Int(rowFirst[y &+ 1]) where size[Int(find(Int32(i)))] < limit {
                let s = Int(start[i]), n = Int(end[i]) &- s
                (row + s).update(repeating: -1, count: n)
                (crow + s).update(repeating: 0, count: n)
            }
        }
    }
}
