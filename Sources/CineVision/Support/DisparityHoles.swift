// DisparityHoles: a disparity map's invalid samples (±inf) filled as background — each hole takes
// the farther of its row's nearest valid samples — shared by the bokeh renderer and the matte's
// edge refiner.
import CineMedia

/// Fills the holes of a disparity map.
enum DisparityHoles {
    /// Copies `plane` (`float32`) into `out` (`width × height`, packed), each run of `±inf`
    /// taking the smaller (farther) of its nearest finite neighbours in the row; a row with no
    /// finite sample copies the nearest row that has one. NaNs are copied as they are (callers
    /// refuse them first). Returns false, leaving `out` undefined, when no sample is finite.
    /// Cost: two passes over each row.
    @discardableResult
    static func fill(_ plane: Plane, into out: UnsafeMutablePointer<Float>) -> Bool {
        let mw = plane.width, mh = plane.height
        var rowValid = [Bool](repeating: true, count: mh)
        for y in 0..<mh {
            let src = plane.row(y, as: Float.self), dst = out + y * mw
            var lastValid: Float? = nil
            var x = 0
            while x < mw {
                if !src[x].isInfinite {
                    dst[x] = src[x]
                    if src[x].isFinite { lastValid = src[x] }
                    x += 1
                    continue
                }
                var end = x
                while end < mw && src[end].isInfinite { end += 1 }
                let right: Float? = end < mw && src[end].isFinite ? src[end] : nil
                let fill: Float?
                switch (lastValid, right) {
                case let (l?, r?): fill = min(l, r)
                case let (l?, nil): fill = l
                case let (nil, r?): fill = r
                default: fill = nil
                }
                if let fill { for i in x..<end { dst[i] = fill } } else { rowValid[y] = false }
                x = end
            }
        }
        guard rowValid.contains(true) else { return false }
        for y in 0..<mh where !rowValid[y] {
            var d = 1
            while d < mh {
                if y - d >= 0 && rowValid[y - d] { (out + y * mw).update(from: out + (y - d) * mw, count: mw); break }
                if y + d < mh && rowValid[y + d] { (out + y * mw).update(from: out + (y + d) * mw, count: mw); break }
                d += 1
            }
        }
        return true
    }
}
