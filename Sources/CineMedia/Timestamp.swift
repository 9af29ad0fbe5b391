// Timestamp: the one clock every packet carries, in nanoseconds.

/// A point in time in nanoseconds from the source's clock.
///
/// Every packet in a graph carries one; all frame-aligned streams of one instant share the
/// video frame's timestamp, which is how a node with several inputs joins them.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since the start of the source's clock.
    public var nanoseconds: Int64

    /// Creates a timestamp from nanoseconds.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Creates a timestamp from seconds, rounded to the nearest nanosecond.
    public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

    /// The time of frame `index` at `fps` frames per second, exact for integer and NTSC rates.
    public init(frame index: Int, fps: Double) {
        self.nanoseconds = Int64((Double(index) * 1e9 / fps).rounded())
    }

    /// Zero: the start of a clock.
    public static let zero = Timestamp(nanoseconds: 0)

    /// The time in seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Timestamp, b: Timestamp) -> Timestamp {
        Timestamp(nanoseconds: a.nanoseconds + b.nanoseconds)
    }
    public static func - (a: Timestamp, b: Timestamp) -> Timestamp {
        Timestamp(nanoseconds: a.nanoseconds - b.nanoseconds)
    }

    /// Seconds with millisecond precision, for example `1.234s`.
    public var description: String {
        let ms = nanoseconds / 1_000_000
        let sign = ms < 0 ? "-" : ""
        let a = abs(ms)
        let frac = String(a % 1000)
        return "\(sign)\(a / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)s"
    }
}
