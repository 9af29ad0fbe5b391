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
/// 2. Per pair of rows, one pass over the columns merges the run above with the run below
///    wherever the two pixels are connected (a union-find over runs, with path halving); only
///    a change of run pair costs a union.
/// 3. Region sizes are summed per root, and the runs of small regions are cleared.
///
/// Cost: ≈ 2 compares per pixel per pass (predictable branches in smooth maps), plus a few
/// operations per run; memory: 4 Int32 per run, 2 rows of run ids.
final class SpeckleFilter: @unchecked Sendable {
    /// Width and height of the maps this filter takes.
    let width: Int
    let height: Int

    /// Per run: first column, end column (exclusive), union-find parent, region size.
    private let start, end, parent, size: UnsafeMutablePointer<Int32>
    /// The first run of every row (`height + 1` entries).
    private let rowFirst: UnsafeMutablePointer<Int32>
    /// The run id of every pixel of the previous and the current row.
    private let runAbove, runHere: UnsafeMutablePointer<Int32>

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
        runAbove = .allocate(capacity: width)
        runHere = .allocate(capacity: width)
    }

    deinit {
        for p in [start, end, parent, size, rowFirst, runAbove, runHere] { p.deallocate() }
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
        var above = runAbove, here = runHere
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
                here[x] = id
                x &+= 1
                while x < w {
                    let v = row[x]
                    if !(v >= 0 && abs(v - previous) <= range) { break }
                    here[x] = id
                    previous = v
                    x &+= 1
                }
                end[Int(id)] = Int32(x)
            }
            // 2. Merge with the runs above where the pixels are connected.
            if y > 0 {
                let up = row - w
                var lastAbove: Int32 = -1, lastHere: Int32 = -1
                for x in 0..<w {
                    let a = row[x], b = up[x]
                    guard a >= 0 && b >= 0 && abs(a - b) <= range else { continue }
                    let ra = above[x], rh = here[x]
                    if ra == lastAbove && rh == lastHere { continue }
                    lastAbove = ra
                    lastHere = rh
                    let p = find(ra), q = find(rh)
                    if p != q { parent[Int(Swift.max(p, q))] = Swift.min(p, q) }
                }
            }
            swap(&above, &here)
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
