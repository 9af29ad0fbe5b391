// ChessboardNode: live calibration's eyes — finds the board in both views off the graph's thread,
// keeps the pairs worth keeping (CalibrationCapture) as side-by-side pictures in a folder, and
// draws what it sees (corners, the frame's coverage) for the viewfinder.
import CineGStreamer
import CineGraph
import CineMedia
import CineVision
import Dispatch
import Foundation

/// Kind `chessboard`: finds a calibration board live and keeps pairs to calibrate from.
public struct ChessboardNode: Node {
    public static let kind = "chessboard"
    public static let summary = "Live stereo calibration: finds a chessboard in both views and keeps the pairs worth calibrating from."
    public static let details = """
        Looks for the board (`board`: inner corners, 9x6 for a board of 10×7 squares) in both views \
        at half resolution, a few times a second, off the graph's thread. A pair is kept when the \
        whole board is in both views, has been held still, and shows something new: a part of the \
        frame no kept pair covered, or a distance or tilt not yet seen. Kept pairs are written to \
        `folder` as side-by-side grey PNGs at full resolution (`pair-001.png`, …) for \
        `cinegraph calibrate FOLDER/*.png --layout sbs`; each posts `calibration-pair` (pairs, \
        coverage), and reaching `pairs` pairs over `coverage` of the frame posts `calibration-enough`. \
        `overlay` shows the pair last searched (a few times a second) with its corners (green: \
        found in both views) and the covered cells tinted, for the viewfinder. `cinegraph calibrate --device` runs this node for you \
        (docs/stereo-rig.md).
        """

    @Input("Both views (rectification off: the calibration is what is being made)") public var stereo: StereoFrame
    @Output(formats: [.rgba8], "The pair last searched, side by side at half size, corners and coverage drawn")
    public var overlay: Image

    @Parameter(default: "9x6", "The board's inner corners, COLSxROWS") public var board: String
    @Parameter(default: "out/calibration", "Where kept pairs are written (side-by-side PNG)") public var folder: String
    @Parameter(default: 15, range: 3...200, "Pairs that are enough") public var pairs: Int
    @Parameter(default: 0.7, range: 0...1, "Share of the frame the corners must cover to be enough") public var coverage: Double

    private var worker: ChessboardWorker?
    private var announced = 0
    private var drawn = 0

    public init() {}

    public func validate() throws {
        do { _ = try Chessboard(parsing: board, square: 1) } catch { throw ParameterError("board", error.message) }
    }

    public mutating func start(_ ctx: inout NodeContext) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ParameterError("folder", "\(folder) cannot be created: \(error.localizedDescription)")
        }
    }

    public mutating func process(_ ctx: inout NodeContext) throws {
        let views = (stereo.left, stereo.right)
        if worker == nil {
            worker = ChessboardWorker(
                board: try Chessboard(parsing: board, square: 1), folder: folder,
                capture: CalibrationCapture(width: views.0.width, height: views.0.height, pairsTarget: pairs, coverageTarget: coverage))
        }
        let w = worker!
        w.submit(views.0, views.1)
        let state = w.state
        if state.kept > announced {
            announced = state.kept
            let share = String(format: "%.0f", state.coverage * 100)
            ctx.post("calibration-pair", ["pairs": "\(state.kept)", "coverage": share, "path": state.lastPath,
                                          "message": "pair \(state.kept) kept: \(share) % of the frame covered"])
            if state.enough {
                ctx.post("calibration-enough", ["pairs": "\(state.kept)", "coverage": share,
                                                "message": "enough: \(state.kept) pairs over \(share) % of the frame"])
            }
        }
        // The pair last searched, with what was found in it: corners drawn on a newer frame would
        // lag the board by the search's time.
        if ctx.isConnected($overlay), state.searched > drawn, let shown = state.views {
            drawn = state.searched
            overlay = ChessboardOverlay.draw(shown.left, shown.right, state: state, pool: ctx.pool)
        }
    }

    public mutating func finish(_ ctx: inout NodeContext) throws {
        worker?.wait()
        if let s = worker?.state { ctx.logger.info("chessboard: \(s.kept) pairs kept in \(folder), \(Int(s.coverage * 100)) % of the frame covered") }
    }
}

/// What the worker has seen, for the overlay and the events.
struct ChessboardState: Sendable {
    var left: [SIMD2<Float>]?
    var right: [SIMD2<Float>]?
    var covered: [Bool] = []
    var kept = 0
    var coverage = 0.0
    var enough = false
    var lastPath = ""
    /// The pair last searched, at half size, and how many have been searched.
    var views: (left: Image, right: Image)?
    var searched = 0
}

/// Finds the board in one pair at a time on its own queue; the graph's thread never waits for it.
final class ChessboardWorker: @unchecked Sendable {
    private let lock = NSLock()
    private let queue = DispatchQueue(label: "cinegraph.chessboard", qos: .utility)
    private let group = DispatchGroup()
    private let finder: ChessboardFinder
    private let resizer = ImageResizer()
    private let folder: String
    private var capture: CalibrationCapture
    private var busy = false
    private var current = ChessboardState()

    init(board: Chessboard, folder: String, capture: CalibrationCapture) {
        finder = ChessboardFinder(board: board)
        self.folder = folder
        self.capture = capture
    }

    var state: ChessboardState { lock.withLock { current } }

    /// Hands a pair over unless one is being searched (then this one is skipped).
    func submit(_ left: Image, _ right: Image) {
        let idle = lock.withLock { () -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        guard idle else { return }
        // Copies of the luma: the frames go back to their pool while the search runs.
        let l = Self.luma(left), r = Self.luma(right)
        queue.async(group: group) { self.search(l, r) }
    }

    func wait() { group.wait() }

    private func search(_ left: Image, _ right: Image) {
        let half = (resizer.resize(left, width: left.width / 2, height: left.height / 2),
                    resizer.resize(right, width: right.width / 2, height: right.height / 2))
        let found = [half.0, half.1].map { (try? finder.corners(in: $0, quick: true)) ?? nil }.map { $0?.map { $0 * 2 + 0.5 } }
        var path = ""
        let verdict = lock.withLock { capture.offer(left: found[0], right: found[1]) }
        if verdict == .take {
            let n = lock.withLock { capture.pairs }
            path = "\(folder)/pair-\(String(format: "%03d", n)).png"
            do { try ImageFile.write(Image.packed(left, right), to: path) } catch { path = "" }
        }
        lock.withLock {
            current.left = found[0]
            current.right = found[1]
            current.views = half
            current.searched += 1
            current.covered = zip(capture.coverage.left.seen, capture.coverage.right.seen).map { $0 && $1 }
            current.kept = capture.pairs
            current.coverage = capture.fraction
            current.enough = capture.isEnough
            if !path.isEmpty { current.lastPath = path }
            busy = false
        }
    }

    static func luma(_ image: Image) -> Image {
        let out = Image(width: image.width, height: image.height, format: .gray8)
        let src = image.plane(0), dst = out.plane(0)
        for y in 0..<image.height { dst.row(y).copyMemory(from: src.row(y), byteCount: image.width) }
        return out
    }
}
