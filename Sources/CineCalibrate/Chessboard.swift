// Chessboard: the calibration target — its inner corners, the size of a square, and where its
// corners lie on the board's plane.

/// A printed chessboard, counted by its inner corners (a board of 10×7 squares has 9×6).
public struct Chessboard: Sendable, Equatable, CustomStringConvertible {
    /// Inner corners along a row.
    public let columns: Int
    /// Inner corners along a column.
    public let rows: Int
    /// The side of one square, in any unit; the baseline comes out in that unit.
    public let square: Double

    /// Creates a board; both counts at least 3, the square positive.
    public init(columns: Int, rows: Int, square: Double) throws(CalibrateError) {
        guard columns >= 3, rows >= 3 else {
            throw CalibrateError("the board needs at least 3×3 inner corners, got \(columns)x\(rows)")
        }
        guard square > 0, square.isFinite else { throw CalibrateError("the square size must be positive, got \(square)") }
        if columns == rows {
            // A square board looks the same turned a quarter; corners could be numbered either way.
            throw CalibrateError(
                "a board with as many inner corners across as down (\(columns)x\(rows)) is ambiguous when turned; use one like 9x6")
        }
        self.columns = columns
        self.rows = rows
        self.square = square
    }

    /// Parses `COLSxROWS` (`9x6`) with a square size.
    public init(parsing text: String, square: Double) throws(CalibrateError) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]) else {
            throw CalibrateError("--board must be COLSxROWS, the inner corners (for example 9x6), got '\(text)'")
        }
        try self.init(columns: c, rows: r, square: square)
    }

    /// Inner corners in all.
    public var cornerCount: Int { columns * rows }

    /// The corners on the board's plane (z = 0), row by row, x fastest, in the square's unit.
    public var objectPoints: [SIMD3<Float>] {
        (0..<rows).flatMap { r in (0..<columns).map { c in SIMD3(Float(Double(c) * square), Float(Double(r) * square), 0) } }
    }

    /// `9x6`.
    public var description: String { "\(columns)x\(rows)" }
}

/// Why a calibration could not be made or was refused; the message says what to do.
public struct CalibrateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// The text of a NUL-terminated message buffer the C face filled.
func message(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
