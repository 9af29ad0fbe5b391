// SemiGlobalWorkspace: the scratch memory of one semi-global matching band — one row of the
// cost volume, the path states of the previous row, and the right-view winners — allocated
// once per image size and reused every frame.

/// Scratch for one band of ``SemiGlobalAggregator``: O(width × disparities), never O(volume).
///
/// At 480×270 with 64 disparities it holds ≈ 0.4 MB (the byte cost row and backward path of
/// 31 KB each, the forward sums of 61 KB, six path rows of 49 KB), so a row's working set stays
/// in L2.
final class SemiGlobalWorkspace: @unchecked Sendable {
    /// Image width in processing pixels.
    let width: Int
    /// Disparities searched (a multiple of 32).
    let disparities: Int
    /// Bytes per pixel slot in path buffers: 32 pad, `disparities` values, 32 pad.
    let slot: Int
    /// Pad value around every slot and beyond the horizontal states: above every path value
    /// (at most 62 + P2 ≤ 254), so it never wins a minimum.
    static let pad: UInt8 = 0xFF

    /// Matching cost of the current row, `width × disparities` bytes.
    let cost: UnsafeMutablePointer<UInt8>
    /// Sum of the forward paths (left→right, vertical, diagonals) of the current row,
    /// `width × disparities`.
    let total: UnsafeMutablePointer<UInt16>
    /// The right→left path of the current row, `width × disparities` bytes.
    let back: UnsafeMutablePointer<UInt8>
    /// Path states (vertical, diagonal from the left, diagonal from the right) of the previous
    /// and current rows: `[2][3][width + 2 slots]`; slot `x + 1` holds pixel x.
    let vertical: UnsafeMutablePointer<UInt8>
    /// The minimum of each path state slot, `[2][3][width + 2]`.
    let verticalMin: UnsafeMutablePointer<UInt8>
    /// Horizontal path states: the previous and current pixel of the left→right path, then
    /// of the right→left path; 4 slots of `disparities` values followed by 32 pad values.
    let horizontalStates: UnsafeMutablePointer<UInt8>
    /// Packed `(cost << 8) | disparity` minima per right-view pixel (reversed), `width + disparities`.
    let rightKeys: UnsafeMutablePointer<UInt32>
    /// Per pixel: the summed cost one disparity below and above the winner, and the right
    /// view's winning disparity at x − d (what the decisions gather): `width` each.
    let belowSums, aboveSums, rightWinners: UnsafeMutablePointer<Int32>
    /// The right-view keys still open while a row's pixels are visited: `disparities`.
    let rightWindow: UnsafeMutablePointer<UInt32>
    /// Pixels rounded up to whole groups of 8 (the decisions run 8 pixels per vector).
    let paddedWidth: Int
    /// The smallest key of each of the 8 lanes (disparities d ≡ lane mod 8), per pixel:
    /// `paddedWidth × 8`; pixels beyond the width stay 0.
    let bestKeys: UnsafeMutablePointer<UInt32>
    /// The second-smallest key of each lane per pixel, then the runner-up offers: `paddedWidth × 8`.
    let secondKeys: UnsafeMutablePointer<UInt32>
    /// The winner's key of every pixel: `paddedWidth`.
    let winnerKeys: UnsafeMutablePointer<UInt32>
    /// The runner-up's key of every pixel: `paddedWidth`.
    let runnerUpKeys: UnsafeMutablePointer<UInt32>
    /// The right view's census row reversed (`width + disparities`; the tail is never matched).
    let reversedRight: UnsafeMutablePointer<UInt64>

    /// Allocates scratch for rows of `width` pixels and `disparities` disparities.
    init(width: Int, disparities: Int) {
        precondition(disparities % 32 == 0 && disparities > 0)
        self.width = width
        self.disparities = disparities
        slot = disparities + 64
        cost = .allocate(capacity: width * disparities)
        total = .allocate(capacity: width * disparities)
        back = .allocate(capacity: width * disparities)
        vertical = .allocate(capacity: 2 * 3 * (width + 2) * slot)
        verticalMin = .allocate(capacity: 2 * 3 * (width + 2))
        horizontalStates = .allocate(capacity: 4 * (disparities + 32))
        rightKeys = .allocate(capacity: width + disparities)
        paddedWidth = (width + 7) / 8 * 8
        bestKeys = .allocate(capacity: paddedWidth * 8)
        secondKeys = .allocate(capacity: paddedWidth * 8)
        winnerKeys = .allocate(capacity: paddedWidth)
        rightWindow = .allocate(capacity: disparities)
        belowSums = .allocate(capacity: width)
        aboveSums = .allocate(capacity: width)
        rightWinners = .allocate(capacity: width)
        for p in [belowSums, aboveSums, rightWinners] { p.initialize(repeating: 0, count: width) }
        rightWindow.initialize(repeating: .max, count: disparities)
        runnerUpKeys = .allocate(capacity: paddedWidth)
        reversedRight = .allocate(capacity: width + disparities)
        reversedRight.initialize(repeating: 0, count: width + disparities)
        vertical.initialize(repeating: Self.pad, count: 2 * 3 * (width + 2) * slot)
        horizontalStates.initialize(repeating: Self.pad, count: 4 * (disparities + 32))
        verticalMin.initialize(repeating: 0, count: 2 * 3 * (width + 2))
        cost.initialize(repeating: 0, count: width * disparities)
        total.initialize(repeating: 0, count: width * disparities)
        back.initialize(repeating: 0, count: width * disparities)
        rightKeys.initialize(repeating: 0, count: width + disparities)
        bestKeys.initialize(repeating: 0, count: paddedWidth * 8)
        secondKeys.initialize(repeating: 0, count: paddedWidth * 8)
        winnerKeys.initialize(repeating: 0, count: paddedWidth)
        runnerUpKeys.initialize(repeating: 0, count: paddedWidth)
    }

    deinit {
        cost.deallocate()
        total.deallocate()
        back.deallocate()
        vertical.deallocate()
        verticalMin.deallocate()
        horizontalStates.deallocate()
        rightKeys.deallocate()
        bestKeys.deallocate()
        secondKeys.deallocate()
        winnerKeys.deallocate()
        rightWindow.deallocate()
        for p in [belowSums, aboveSums, rightWinners] { p.deallocate() }
        runnerUpKeys.deallocate()
        reversedRight.deallocate()
    }

    /// The values of path `path` (0 vertical, 1 diagonal from the left, 2 diagonal from the
    /// right) in row buffer `row` (0 or 1) at slot 0; slot i is `i × slot` further.
    @inline(__always) func state(row: Int, path: Int) -> UnsafeMutablePointer<UInt8> {
        vertical + (row * 3 + path) * (width + 2) * slot + 32
    }

    /// Horizontal state `index` (0, 1: left→right; 2, 3: right→left): `disparities` values,
    /// then 32 pad values.
    @inline(__always) func horizontal(_ index: Int) -> UnsafeMutablePointer<UInt8> {
        horizontalStates + index * (disparities + 32)
    }

    /// The minimum of each path state slot of row buffer `row`.
    @inline(__always) func stateMin(row: Int, path: Int) -> UnsafeMutablePointer<UInt8> {
        verticalMin + (row * 3 + path) * (width + 2)
    }

    /// Zeroes the path states of row buffer `row` (the state before the first row of a band:
    /// the first row's paths start from its own costs).
    func resetPaths(row: Int) {
        for path in 0..<3 {
            let base = state(row: row, path: path)
            for i in 0..<(width + 2) { (base + i * slot).update(repeating: 0, count: disparities) }
            stateMin(row: row, path: path).update(repeating: 0, count: width + 2)
        }
    }
}
