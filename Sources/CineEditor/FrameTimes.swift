// FrameTimes: which frame of a take a time falls on.

/// Frame lookup by time.
enum FrameTimes {
    /// The index of the time in `times` (ascending, not empty) nearest `t`; the earlier on a tie.
    static func nearest(_ t: Int64, in times: [Int64]) -> Int {
        var lo = 0, hi = times.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0 && t - times[lo - 1] <= times[lo] - t { lo -= 1 }
        return lo
    }
}
