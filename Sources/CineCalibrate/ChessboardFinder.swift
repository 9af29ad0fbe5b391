// ChessboardFinder: a board's inner corners in a picture, to a fraction of a pixel, through
// OpenCV's calib3d (the sector-based detector; the classic one with cornerSubPix as a fallback).
import CineMedia
import COpenCVCalib

/// Finds a chessboard's inner corners in the luma of a picture.
public struct ChessboardFinder: Sendable {
    /// The board looked for.
    public let board: Chessboard

    /// Creates a finder for `board`.
    public init(board: Chessboard) { self.board = board }

    /// The corners (row by row, x fastest, in pixels), or `nil` when the whole board is not in
    /// the picture. Reads plane 0 (grey, or the luma of I420 and NV12). `quick` trades accuracy
    /// for speed (the classic detector, tens of milliseconds): for live feedback, not to calibrate.
    public func corners(in image: Image, quick: Bool = false) throws(CalibrateError) -> [SIMD2<Float>]? {
        guard image.format == .gray8 || image.format == .i420 || image.format == .nv12 else {
            throw CalibrateError("chessboard corners are found in grey or YUV pictures, not \(image.format)")
        }
        let luma = image.plane(0)
        var xy = [Float](repeating: 0, count: board.cornerCount * 2)
        var error = [CChar](repeating: 0, count: 512)
        let found = cgcv_find_chessboard(
            luma.base.assumingMemoryBound(to: UInt8.self), Int32(luma.width), Int32(luma.height), Int32(luma.stride),
            Int32(board.columns), Int32(board.rows), quick ? 1 : 0, &xy, &error, Int32(error.count))
        if found < 0 { throw CalibrateError("OpenCV could not search the picture: \(message(error))") }
        guard found == 1 else { return nil }
        return (0..<board.cornerCount).map { SIMD2(xy[2 * $0], xy[2 * $0 + 1]) }
    }
}
