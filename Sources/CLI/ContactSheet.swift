// ContactSheet: one picture of a whole take — frames across it in a grid, each with the focus
// target marked, above a strip that draws the focus story (who was in focus when).
import CineGStreamer
import CineMedia
import CineVision
import Foundation

/// Lays out frames of a rendered take in a grid with the focus target (solid yellow) and the
/// other subjects (white) marked on each, and draws below them the focus disparity over time
/// (yellow) beside every subject's disparity (grey), with a tick where each tile was taken.
struct ContactSheet {
    var columns = 4
    var rows = 2
    /// Width of one tile in pixels (even).
    var tileWidth = 400
    /// Height of the focus strip under the tiles.
    var stripHeight = 120
    private let margin = 8
    private let background = VideoColor(red: 27, green: 27, blue: 27)
    private let tickColor = VideoColor(red: 90, green: 90, blue: 90)
    private let subjectColor = VideoColor(red: 150, green: 150, blue: 150)

    /// The frame indices the tiles show: the middle of each of `columns × rows` equal parts.
    func tileFrames(frameCount: Int) -> [Int] {
        let n = columns * rows
        return (0..<n).map { min(frameCount - 1, Int((Double($0) + 0.5) * Double(frameCount) / Double(n))) }
    }

    /// Builds the sheet from the frames of `movie` and the take's per-frame `records` (the
    /// asset's metadata: frame `i` of the movie is record `i`).
    func make(movie: String, records: [AssetFrameRecord]) throws -> Image {
        let picks = tileFrames(frameCount: max(1, records.count))
        var tiles: [Int: Image] = [:]
        var frameSize = (width: 16, height: 9)
        let resizer = ImageResizer()
        try ImageFile.forEachFrame(ofMovie: movie) { index, frame in
            if picks.contains(index) {
                frameSize = (frame.width, frame.height)
                tiles[index] = resizer.resize(frame, width: tileWidth, height: tileHeight(frameSize))
            }
            return index < (picks.last ?? 0)
        }
        let th = tileHeight(frameSize)
        let width = margin + columns * (tileWidth + margin)
        let height = margin + rows * (th + margin) + stripHeight + margin
        let sheet = Image(width: width, height: height, format: .i420)
        sheet.fill(x: 0, y: 0, width: width, height: height, color: background)
        for (k, index) in picks.enumerated() {
            guard let tile = tiles[index] else { continue }
            let x = margin + (k % columns) * (tileWidth + margin), y = margin + (k / columns) * (th + margin)
            let view = sheet.cropped(x: x, y: y, width: tileWidth, height: th)
            view.copyPixels(from: tile)
            guard index < records.count else { continue }
            let record = records[index]
            let target = record.focus?.targetDetectionID
            for d in record.detections where d.id != target {
                view.strokeRectangle(d.bounds, color: .white, thickness: 1)
            }
            for d in record.detections where d.id == target {
                view.strokeRectangle(d.bounds, color: .focusYellow, thickness: 3)
            }
        }
        drawStrip(on: sheet.cropped(x: margin, y: height - margin - stripHeight, width: width - 2 * margin,
                                    height: stripHeight), records: records, picks: picks)
        return sheet
    }

    private func tileHeight(_ size: (width: Int, height: Int)) -> Int {
        max(2, Int((Double(tileWidth) * Double(size.height) / Double(size.width) / 2).rounded()) * 2)
    }

    /// Focus disparity (yellow) and subjects' disparities (grey) over the take, one column per
    /// pixel, with a tick at each tile's frame. Disparity 0 at the bottom, the largest on top.
    private func drawStrip(on strip: Image, records: [AssetFrameRecord], picks: [Int]) {
        guard !records.isEmpty else { return }
        var top = 1.0
        for r in records {
            if let f = r.focus?.focusDisparity, f.isFinite { top = max(top, f) }
            for d in r.detections { if let v = d.disparity, v.isFinite { top = max(top, v) } }
        }
        top *= 1.1
        let w = strip.width, h = strip.height
        func row(_ d: Double) -> Int { max(0, min(h - 2, Int((1 - d / top) * Double(h - 2)))) }
        func column(_ frame: Int) -> Int { min(w - 2, frame * w / records.count) }
        for p in picks { strip.fill(x: column(p), y: 0, width: 2, height: h, color: tickColor) }
        for x in 0..<w {
            let r = records[min(records.count - 1, x * records.count / w)]
            for d in r.detections {
                if let v = d.disparity, v.isFinite { strip.fill(x: x, y: row(v), width: 1, height: 2, color: subjectColor) }
            }
        }
        var previous: Int?
        for x in 0..<w {
            let r = records[min(records.count - 1, x * records.count / w)]
            guard let f = r.focus?.focusDisparity, f.isFinite else { previous = nil; continue }
            let y = row(f)
            let from = min(y, previous ?? y), to = max(y, previous ?? y)
            strip.fill(x: x, y: from, width: 2, height: to - from + 3, color: .focusYellow)
            previous = y
        }
    }
}
