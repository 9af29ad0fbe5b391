// ViewerLatency: what a person at the viewfinder waits — from the camera to the frame on their
// screen — kept as the last few thousand samples, with the percentiles the statistics report;
// and the rate a viewer is sent frames at, lowered when the machine is short.
import Synchronization

/// The last `capacity` capture-to-screen latencies (milliseconds), from every viewer.
///
/// A sample is the server's part (how far the sent frame trailed the camera's newest frame,
/// plus the node-to-socket delay) and the page's part (header received to frame painted, which
/// the page reports with its next `next`). Adding is O(1); percentiles sort a copy (called once
/// a second at most).
final class ViewerLatency: Sendable {
    private struct Ring {
        var samples: [Double] = []
        var next = 0
        var count = 0
    }

    private let capacity: Int
    private let ring = Mutex(Ring())

    /// Keeps the newest `capacity` samples (default: about 4.5 minutes at 30 fps).
    init(capacity: Int = 8192) { self.capacity = capacity }

    /// Records one frame's latency in milliseconds.
    func add(_ milliseconds: Double) {
        guard milliseconds.isFinite, milliseconds >= 0 else { return }
        ring.withLock { r in
            if r.samples.count < capacity { r.samples.append(milliseconds) } else { r.samples[r.next] = milliseconds }
            r.next = (r.next + 1) % capacity
            r.count += 1
        }
    }

    /// Samples recorded since start (including those the ring has let go).
    var count: Int { ring.withLock { $0.count } }

    /// The `p`-th percentile (0…100, nearest rank) of the kept samples; nil before the first.
    func percentile(_ p: Double) -> Double? {
        let sorted = ring.withLock { $0.samples }.sorted()
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    /// The most frames a second a viewer is sent at load level `level` (0 = calm): the node's
    /// `max-fps`, then at most 20, then at most 15 — the page's decoding and painting cost a
    /// browser on the same machine CPU the take may need.
    static func viewerRate(maxFPS: Double, loadLevel level: Int) -> Double {
        switch level {
        case ...0: return maxFPS
        case 1: return min(maxFPS, 20)
        default: return min(maxFPS, 15)
        }
    }

    /// The page's part of a sample from a viewer's message: `next` alone (an older page, or the
    /// first request) gives nil; `next 23.5` gives 23.5 ms. Anything else is not a request.
    static func parseNext(_ text: String) -> (isRequest: Bool, pageMilliseconds: Double?) {
        if text == "next" { return (true, nil) }
        guard text.hasPrefix("next "), let ms = Double(text.dropFirst(5)), ms.isFinite, ms >= 0, ms < 60_000 else {
            return (false, nil)
        }
        return (true, ms)
    }
}
