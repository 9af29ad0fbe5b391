// RowBands: the one row-band parallel loop — a range of rows cut into contiguous bands, one
// concurrent job each, so a per-pixel kernel uses both cores without sharing a row.
import Dispatch

/// Splits rows into contiguous bands and runs a kernel on each band concurrently.
///
/// ```swift
/// RowBands.run(0..<height, bands: 2) { band, rows in for y in rows { … } }
/// ```
/// The kernel must write disjoint memory per band (its own rows, its band's scratch); that is
/// the contract that lets it capture pointers without wrapping them.
enum RowBands {
    /// Runs `body(band, rows)` on `bands` contiguous slices of `rows` (band `k` gets
    /// `[lower + n·k/bands, lower + n·(k+1)/bands)`), concurrently, and returns when all are
    /// done. One band runs on the calling thread; an empty range runs nothing. `band` indexes per-band
    /// scratch memory. Cost: one `concurrentPerform` (two small allocations) per call.
    static func run(_ rows: Range<Int>, bands: Int, _ body: (_ band: Int, _ rows: Range<Int>) -> Void) {
        let n = rows.count, b = min(max(1, bands), n), lower = rows.lowerBound
        guard n > 0 else { return }
        if b == 1 { return body(0, rows) }
        withoutActuallyEscaping(body) { escapable in
            let job = BandJob(run: escapable)
            DispatchQueue.concurrentPerform(iterations: b) { k in
                job.run(k, (lower + n * k / b)..<(lower + n * (k + 1) / b))
            }
        }
    }

    /// Two bands for a kernel over `pixels` ≥ `threshold`, else one: below that the second job
    /// costs more than it saves.
    static func count(forPixels pixels: Int, threshold: Int = 200_000) -> Int { pixels >= threshold ? 2 : 1 }
}

/// A band body shared by the jobs of one `concurrentPerform`, which returns before the body
/// goes away; each job writes disjoint rows.
private struct BandJob: @unchecked Sendable {
    let run: (Int, Range<Int>) -> Void
}
