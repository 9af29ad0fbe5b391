// OptimalAssignment: the Hungarian method (Kuhn–Munkres with potentials, O(n³)) — the pairing of
// rows and columns that maximises the total score, as the tracker uses to pair tracks with
// detections when greedy choice would steal one subject's box for another.

/// Solves the assignment problem on a dense score matrix.
public enum OptimalAssignment {
    /// Pairs rows with columns to maximise the summed score; `nil` entries can never be paired,
    /// and scores should be positive (a pair scoring 0 or less may be left out).
    /// Returns `(row, column)` pairs, each row and column at most once, in row order. Rectangular
    /// matrices are fine. Cost: O(n³) for n = max(rows, columns); a few microseconds for a scene.
    public static func maximise(_ scores: [[Double?]]) -> [(row: Int, column: Int)] {
        let rows = scores.count
        let columns = scores.first?.count ?? 0
        guard rows > 0, columns > 0 else { return [] }
        let n = max(rows, columns)
        // Costs: minus the score; forbidden and padding cells cost 0, as leaving a row unpaired
        // does, and are dropped from the result (so a pairing only happens when it adds score).
        var cost = [Double](repeating: 0, count: n * n)
        for i in 0..<rows {
            precondition(scores[i].count == columns, "score rows must have the same length")
            for j in 0..<columns { if let s = scores[i][j] { cost[i * n + j] = -s } }
        }
        // Potentials u (rows), v (columns); p[j] = row matched to column j (1-based, 0 = none).
        var u = [Double](repeating: 0, count: n + 1), v = [Double](repeating: 0, count: n + 1)
        var p = [Int](repeating: 0, count: n + 1), way = [Int](repeating: 0, count: n + 1)
        for i in 1...n {
            p[0] = i
            var j0 = 0
            var minv = [Double](repeating: .infinity, count: n + 1)
            var used = [Bool](repeating: false, count: n + 1)
            repeat {
                used[j0] = true
                let i0 = p[j0]
                var delta = Double.infinity, j1 = 0
                for j in 1...n where !used[j] {
                    let cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j]
                    if cur < minv[j] {
                        minv[j] = cur
                        way[j] = j0
                    }
                    if minv[j] < delta {
                        delta = minv[j]
                        j1 = j
                    }
                }
                for j in 0...n {
                    if used[j] {
                        u[p[j]] += delta
                        v[j] -= delta
                    } else {
                        minv[j] -= delta
                    }
                }
                j0 = j1
            } while p[j0] != 0
            repeat {
                let j1 = way[j0]
                p[j0] = p[j1]
                j0 = j1
            } while j0 != 0
        }
        var pairs: [(row: Int, column: Int)] = []
        for j in 1...n {
            let i = p[j] - 1, c = j - 1
            if i < rows && c < columns && scores[i][c] != nil { pairs.append((i, c)) }
        }
        return pairs.sorted { $0.row < $1.row }
    }
}
