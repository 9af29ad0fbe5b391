// OutOfViewFill: what stands at the frame's left edge nearer than the right camera can see — a
// head or a shoulder cut by the edge, narrower than its own disparity — given a depth the
// geometry allows, rather than the wall's depth the matcher fills the stereo border with.
import CineMedia

/// Gives the left view's first columns that no disparity can explain the depth they must have.
///
/// A pixel of the left view at column `X` with disparity `D` shows in the right view at
/// `X − D`: where `D > X` the right camera does not see it at all. A person cut by the frame's
/// left edge whose visible part is narrower than their disparity (a 40-px sliver of a head at
/// 42 px) has no pixel the two views share. The matcher fills the border with the background's
/// disparity, and the person matte, seeing only a sliver, often misses them: the render keeps
/// the wall's depth there and blurs a face the focus may be on.
///
/// For each row of the map, the run of samples from the left edge that match the right view
/// nowhere — not at their value in the map, nor at any shift from 0 to their own column — is out
/// of the right camera's view, so its disparity is at least the run's width. Two things can make
/// such a run:
/// - something nearer *right of it* hides it from the right camera (the wall between the frame's
///   edge and a person standing near it): a sample after the run then lies at least as near as
///   its own column (its disparity reaches past the frame's edge), and the run is left as it is;
/// - or the run *is* the near thing, and what follows it is farther (the wall beside a head cut
///   by the edge): nothing else explains it, and the run takes the disparity of its width.
///
/// Samples a person matte holds are left to the person refinement. The test reads the 5×5 window
/// at each sample's centre in the views (mean absolute luma difference), only for samples that do
/// not match at their own value: a few samples a row.
public struct OutOfViewFill: Sendable {
    /// The knobs of the fill.
    public struct Settings: Sendable, Hashable {
        /// A window whose mean absolute luma difference against the right view is under this
        /// matches there.
        public var match: Float = 10
        /// How far apart (levels) the means of two windows may lie and still match: the two
        /// cameras' exposures.
        public var exposure: Float = 12
        /// A window whose mean absolute deviation from its own mean is under this is flat: it
        /// matches only at its sample's own value (a flat patch matches any flat patch).
        public var texture: Float = 4
        /// The fewest samples a run needs.
        public var minimumRun = 3
        /// How much farther (samples of the map) than its own column every sample after a run
        /// must lie for nothing right of the run to explain it: a run may pass over one seen
        /// sample, and an outline may fall inside a sample.
        public var slack = 3
        /// Rows each way whose runs vote on a row's width (and fill a row between two runs).
        public var rows = 3
        /// The longest run considered, as a share of the map's width.
        public var widest: Float = 0.2
        /// The default settings.
        public init() {}
    }

    /// The settings of the next call.
    public var settings: Settings

    /// Creates a fill.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Fills `d` (`mapWidth`×`mapHeight`, disparity in pixels of a `referenceWidth`-wide frame)
    /// where the left view's first columns match nothing the right view shows and nothing right
    /// of them hides them. `skip(i)` names samples to leave alone (a person's). `left` and
    /// `right` are the rectified views' luma, at least twice the map's width. Returns the indices
    /// written.
    public func fill(_ d: inout [Float], mapWidth w: Int, mapHeight h: Int, referenceWidth: Int,
                     left: Plane, right: Plane, skip: (Int) -> Bool) -> [Int] {
        guard w > 0, h > 0, d.count == w * h, left.width >= 2 * w, right.width == left.width, right.height == left.height
        else { return [] }
        let iw = left.width, ih = left.height
        let toImage = Float(iw) / Float(referenceWidth), sampleWidth = Float(referenceWidth) / Float(w)
        let widest = max(settings.minimumRun, Int(settings.widest * Float(w)))
        let limit = settings.match * 25
        // The sum of absolute differences of the 5×5 window at (px, py) against the right view
        // `shift` pixels to the left, each window less its own mean (two cameras of a real rig
        // differ in exposure by a few levels), or nil where the window leaves either view. Means
        // further apart than ``Settings/exposure`` levels do not match at all (a flat cheek less
        // its mean is a flat brick less its own).
        func cost(_ px: Int, _ py: Int, _ shift: Int) -> Float? {
            guard py >= 2, py + 2 < ih, px - 2 - shift >= 0, px + 2 < iw else { return nil }
            var offset = 0
            for yy in py - 2...py + 2 {
                let l = left.row(yy, as: UInt8.self), r = right.row(yy, as: UInt8.self)
                for xx in px - 2...px + 2 { offset += Int(l[xx]) - Int(r[xx - shift]) }
            }
            guard Float(abs(offset)) <= settings.exposure * 25 else { return .infinity }
            var sum = 0
            for yy in py - 2...py + 2 {
                let l = left.row(yy, as: UInt8.self), r = right.row(yy, as: UInt8.self)
                for xx in px - 2...px + 2 { sum += abs(25 * (Int(l[xx]) - Int(r[xx - shift])) - offset) }
            }
            return Float(sum) / 25
        }
        // Whether the 5×5 window at (px, py) has texture of its own (mean absolute deviation
        // from its mean at least `settings.texture`).
        func textured(_ px: Int, _ py: Int) -> Bool {
            guard py >= 2, py + 2 < ih, px >= 2, px + 2 < iw else { return false }
            var sum = 0
            for yy in py - 2...py + 2 {
                let l = left.row(yy, as: UInt8.self)
                for xx in px - 2...px + 2 { sum += Int(l[xx]) }
            }
            var deviation = 0
            for yy in py - 2...py + 2 {
                let l = left.row(yy, as: UInt8.self)
                for xx in px - 2...px + 2 { deviation += abs(25 * Int(l[xx]) - sum) }
            }
            return Float(deviation) >= settings.texture * 625
        }
        // Whether sample (x, y) is seen by the right camera: it matches at its own value, or,
        // with texture of its own, at some shift the frame's edge allows (a flat patch of a face
        // matches the flat part of the same face the right view shows).
        let map = d
        func seen(_ x: Int, _ y: Int) -> Bool {
            let px = (2 * x + 1) * iw / (2 * w), py = (2 * y + 1) * ih / (2 * h)
            let v = map[y * w + x]
            if v.isFinite, let c = cost(px, py, Int((v * toImage).rounded())), c < limit { return true }
            guard textured(px, py) else { return false }
            var shift = 0
            while let c = cost(px, py, shift) {
                if c < limit { return true }
                shift += 1
            }
            return false
        }
        // Whether something after a run of `run` samples on row `y` explains it: anything as
        // near as its own column, give or take the gap the run may have passed over, hides
        // everything left of it (or puts it out of the right camera's view).
        let slack = Float(settings.slack) * sampleWidth
        func explained(_ y: Int, _ run: Int) -> Bool {
            (run..<widest).contains { x in
                let v = map[y * w + x]
                return v.isFinite && v >= Float(x) * sampleWidth - slack
            }
        }
        // The samples to leave alone among the first columns the runs can reach.
        let lead = min(w, widest + 1)
        var skipped = [Bool](repeating: false, count: h * lead)
        for y in 0..<h { for x in 0..<lead { skipped[y * lead + x] = skip(y * w + x) } }
        // Each row's run, where nothing explains it (0 elsewhere): the rows on two cores, each
        // sample's test made once.
        var runs = [Int](repeating: 0, count: h)
        runs.withUnsafeMutableBufferPointer { buffer in
            let runs = buffer
            RowBands.run(0..<h, bands: 2) { _, rows in
                var known = [Int8](repeating: -1, count: lead)
                for y in rows {
                    for x in 0..<lead { known[x] = -1 }
                    func unseen(_ x: Int) -> Bool {
                        if known[x] < 0 { known[x] = seen(x, y) ? 1 : 0 }
                        return known[x] == 0
                    }
                    // (A single sample that matches somewhere — a flat patch of hair against a
                    // flat brick — does not end the run; two in a row do.)
                    var run = 0
                    while run < widest, !skipped[y * lead + run],
                          unseen(run) || (run + 1 < w && !skipped[y * lead + run + 1] && unseen(run + 1)) {
                        run += 1
                    }
                    guard run >= settings.minimumRun, run < widest, !skipped[y * lead + run], !explained(y, run) else { continue }
                    runs[y] = run
                }
            }
        }
        // The runs of a few rows each way vote (a flat patch that matched somewhere cuts one
        // row's run short, or ends it before it began): each row takes the middle of its
        // neighbours' widths, and a row between two runs within reach takes their middle length.
        var written: [Int] = []
        var near: [Int] = []
        for y in 0..<h {
            let lo = max(0, y - settings.rows), hi = min(h - 1, y + settings.rows)
            guard runs[y] > 0 || (lo..<y).contains(where: { runs[$0] > 0 }) && (y + 1 <= hi && ((y + 1)...hi).contains(where: { runs[$0] > 0 }))
            else { continue }
            near.removeAll(keepingCapacity: true)
            for k in lo...hi where runs[k] > 0 { near.append(runs[k]) }
            near.sort()
            let middle = near[near.count / 2]
            let run = runs[y] > 0 ? runs[y] : middle
            guard runs[y] > 0 || (run < widest && (0...run).allSatisfy({ !skipped[y * lead + $0] }) && !explained(y, run)) else { continue }
            let width = Float(middle) * sampleWidth
            for x in 0..<run {
                d[y * w + x] = width
                written.append(y * w + x)
            }
        }
        return written
    }
}
