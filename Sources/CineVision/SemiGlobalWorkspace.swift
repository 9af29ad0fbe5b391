// SemiGlobalWorkspace: the scratch memory of one semi-global matching band — one row of the
// cost volume, the path states of the previous row, and the right-view winners — allocated
// once per image size and reused every frame.

/// Scratch for one band of ``SemiGlobalAggregator``: O(width × disparities), never O(volume).
///
/// At 480×270 with 64 disparities it holds ≈ 0.5 MB (two cost rows of 61 KB, six path rows of
/// 77 KB), so the working set of a row stays in L2.
final class SemiGlobalWorkspace: @unchecked Sendable {
    /// Image width in processing pixels.
    let width: Int
    /// Disparities searched (a multiple of 16).
    let disparities: Int
    /// Elements per pixel slot in path buffers: 8 pad, `disparities` values, 8 pad.
    let slot: Int
    /// Pad value around every slot: large enough never to win a minimum, small enough that
    /// adding P1 cannot overflow.
    static let pad: UInt16 = 0x3FFF

    /// Matching cost of the current row, `width × disparities`.
    let cost: UnsafeMutablePointer<UInt16>
    /// Sum of the paths of the current row, `width × disparities`.
    let total: UnsafeMutablePointer<UInt16>
    /// Path states (vertical, diagonal from the left, diagonal from the right) of the previous
    /// and current rows: `[2][3][width + 2 slots]`; slot `x + 1` holds pixel x.
    let vertical: UnsafeMutablePointer<UInt16>
    /// The minimum of each path state slot, `[2][3][width + 2]`.
    let verticalMin: UnsafeMutablePointer<UInt16>
    /// Horizontal path state of the previous pixel and the current one, 2 slots.
    let horizontal: UnsafeMutablePointer<UInt16>
    /// Packed `(cost << 8) | disparity` minima per right-view pixel (reversed), `width + disparities`.
    let rightKeys: UnsafeMutablePointer<UInt32>
    /// The integer winner per pixel of the current row.
    let winner: UnsafeMutablePointer<Int32>
    /// The right view's census row reversed (`width + disparities`; the tail is never matched).
    let reversedRight: UnsafeMutablePointer<UInt64>

    /// Allocates scratch for rows of `width` pixels and `disparities` disparities.
    init(width: Int, disparities: Int) {
        precondition(disparities % 16 == 0 && disparities > 0)
        self.width = width
        self.disparities = disparities
        slot = disparities + 16
        cost = .allocate(capacity: width * disparities)
        total = .allocate(capacity: width * disparities)
        vertical = .allocate(capacity: 2 * 3 * (width + 2) * slot)
        verticalMin = .allocate(capacity: 2 * 3 * (width + 2))
        horizontal = .allocate(capacity: 2 * slot)
        rightKeys = .allocate(capacity: width + disparities)
        winner = .allocate(capacity: width)
        reversedRight = .allocate(capacity: width + disparities)
        reversedRight.initialize(repeating: 0, count: width + disparities)
        vertical.initialize(repeating: Self.pad, count: 2 * 3 * (width + 2) * slot)
        horizontal.initialize(repeating: Self.pad, count: 2 * slot)
        verticalMin.initialize(repeating: 0, count: 2 * 3 * (width + 2))
        cost.initialize(repeating: 0, count: width * disparities)
        total.initialize(repeating: 0, count: width * disparities)
        rightKeys.initialize(repeating: 0, count: width + disparities)
        winner.initialize(repeating: 0, count: width)
    }

    deinit {
        cost.deallocate()
        total.deallocate()
        vertical.deallocate()
        verticalMin.deallocate()
        horizontal.deallocate()
        rightKeys.deallocate()
        winner.deallocate()
        reversedRight.deallocate()
    }

    /// The data of path `path` (0 vertical, 1 diagonal from the left, 2 diagonal from the right)
    /// in row buffer `row` (0 or 1) at slot `index` (pixel x is slot x + 1).
    @inline(__always) func state(row: Int, path: Int, slot index: Int) -> UnsafeMutablePointer<UInt16> {
        vertical + ((row * 3 + path) * (width + 2) + index) * slot + 8
    }

    /// The minimum of a path state slot.
    @inline(__always) func stateMin(row: Int, path: Int) -> UnsafeMutablePointer<UInt16> {
        verticalMin + (row * 3 + path) * (width + 2)
    }

    /// Zeroes the path states of row buffer `row` (the state before the first row of a band:
    /// the first row's paths start from its own costs).
    func resetPaths(row: Int) {
        for path in 0..<3 {
            for i in 0..<(width + 2) { state(row: row, path: path, slot: i).update(repeating: 0, count: disparities) }
            stateMin(row: row, path: path).update(repeating: 0, count: width + 2)
        }
    }
}
