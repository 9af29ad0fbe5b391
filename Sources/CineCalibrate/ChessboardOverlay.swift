// ChessboardOverlay: what live calibration shows — both views at half size, the cells of the
// frame that kept pairs have covered tinted green, and the corners found: green when the board
// is whole in both views, amber when in one only.
import CineGraph
import CineMedia

enum ChessboardOverlay {
    /// Both (half-size, grey) views side by side, RGBA, with `state` drawn.
    static func draw(_ left: Image, _ right: Image, state: ChessboardState, pool: ImagePool) -> Image {
        let w = left.width, h = left.height
        let out = pool.makeImage(width: 2 * w, height: h, format: .rgba8)
        let dst = out.plane(0)
        let both = state.left != nil && state.right != nil
        for (i, view) in [left, right].enumerated() {
            let src = view.plane(0)
            for y in 0..<h {
                let a = src.row(y, as: UInt8.self)
                let d = dst.row(y, as: UInt32.self) + i * w
                let cellRow = y * BoardCoverage.rows / h
                for x in 0..<w {
                    let g = UInt32(a[x])
                    let cell = cellRow * BoardCoverage.columns + x * BoardCoverage.columns / w
                    if cell < state.covered.count && state.covered[cell] {
                        // Covered: a green tint (R and B at three quarters).
                        let q = g * 3 / 4
                        d[x] = 0xFF00_0000 | q << 16 | min(255, q + 64) << 8 | q
                    } else {
                        d[x] = 0xFF00_0000 | g << 16 | g << 8 | g
                    }
                }
            }
            let colour: UInt32 = both ? 0xFF00_FF00 : 0xFF00_B0FF  // green, or amber (R 255, G 176)
            for p in (i == 0 ? state.left : state.right) ?? [] {
                let cx = Int(p.x / 2), cy = Int(p.y / 2)
                for dy in -2...2 {
                    for dx in -2...2 where abs(dx) == abs(dy) || dx == 0 || dy == 0 {
                        let x = cx + dx, y = cy + dy
                        guard x >= 0, y >= 0, x < w, y < h else { continue }
                        (dst.row(y, as: UInt32.self) + i * w)[x] = colour
                    }
                }
            }
        }
        return out
    }
}

extension NodeRegistry {
    /// This registry with kind `chessboard` (live calibration) registered: the `cinegraph` tool
    /// runs graphs with `NodeRegistry.standard().withViewfinder().withCalibration()`.
    public func withCalibration() -> NodeRegistry {
        register(ChessboardNode.self)
        return self
    }
}
