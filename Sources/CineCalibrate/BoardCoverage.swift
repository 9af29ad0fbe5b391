// BoardCoverage: which parts of the frame the board's corners have been seen in — a calibration
// only knows the lens where it has seen the board, and distortion is largest at the edges.

/// A coarse grid over the frame marking the cells where board corners have been seen.
public struct BoardCoverage: Sendable, Equatable {
    /// Cells across.
    public static let columns = 8
    /// Cells down.
    public static let rows = 6
    /// The frame's width in pixels.
    public let width: Int
    /// The frame's height in pixels.
    public let height: Int
    /// Seen cells, row by row.
    public private(set) var seen: [Bool]

    /// An empty grid over a `width` × `height` frame.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        seen = Array(repeating: false, count: Self.columns * Self.rows)
    }

    /// The cell index of a point, or `nil` outside the frame.
    public func cell(_ p: SIMD2<Float>) -> Int? {
        let c = Int(p.x / Float(width) * Float(Self.columns)), r = Int(p.y / Float(height) * Float(Self.rows))
        guard p.x >= 0, p.y >= 0, c < Self.columns, r < Self.rows else { return nil }
        return r * Self.columns + c
    }

    /// How many cells `corners` would add.
    public func gain(_ corners: [SIMD2<Float>]) -> Int {
        Set(corners.compactMap(cell)).filter { !seen[$0] }.count
    }

    /// Marks the cells `corners` fall in.
    public mutating func add(_ corners: [SIMD2<Float>]) {
        for i in corners.compactMap(cell) { seen[i] = true }
    }

    /// The share of cells seen, 0…1.
    public var fraction: Double { Double(seen.filter { $0 }.count) / Double(seen.count) }
}
