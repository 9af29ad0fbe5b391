// StabilizationLumaPyramid: the grey image the motion estimator works on — a frame's luma
// area-averaged down to the analysis width, then halved level by level for pyramidal tracking.

import CineMedia
import Foundation

/// A Float luma pyramid of one frame at the analysis resolution (level 0) and coarser levels.
struct StabilizationLumaPyramid: Sendable {
    /// One level: `width` × `height` Float samples, row stride `width`.
    struct Level: Sendable {
        let width: Int
        let height: Int
        let pixels: [Float]
    }

    /// Level 0 is the analysis resolution; each next level is half as large.
    let levels: [Level]
    /// Full-resolution size of the frame.
    let frameWidth: Int
    let frameHeight: Int
    /// Full-resolution pixels per analysis pixel, horizontally and vertically.
    let scaleX: Double
    let scaleY: Double

    /// Builds the pyramid of `image`'s luma plane (gray8, i420 or nv12).
    ///
    /// Cost: the downscale reads every full-resolution luma byte once (one load + one add into a
    /// UInt32 row accumulator) and writes `analysisWidth × analysisHeight` floats, split in row
    /// bands over the cores; each further level reads the previous one once (4 loads, 3 adds).
    init(image: Image, analysisWidth: Int, maxLevels: Int) throws {
        guard image.width > 0 && image.height > 0 else {
            throw StabilizationError.emptyFrame(width: image.width, height: image.height)
        }
        guard image.format == .gray8 || image.format == .i420 || image.format == .nv12 else {
            throw StabilizationError.unsupportedFormat(image.format.rawValue, supported: "gray8, i420 or nv12")
        }
        let luma = image.plane(0)
        let w = max(8, min(analysisWidth, image.width))
        let h = max(8, min(image.height, Int((Double(image.height) * Double(w) / Double(image.width)).rounded())))
        frameWidth = image.width
        frameHeight = image.height
        scaleX = Double(image.width) / Double(w)
        scaleY = Double(image.height) / Double(h)

        var base = [Float](repeating: 0, count: w * h)
        base.withUnsafeMutableBufferPointer { out in
            let dst = out.baseAddress!
            RowBands.run(0..<h, bands: RowBands.count(forPixels: image.width * image.height)) { _, rows in
                StabilizationLumaPyramid.downscale(luma, rows: rows, width: w, height: h, into: dst)
            }
        }
        var levels = [Level(width: w, height: h, pixels: base)]
        while levels.count < maxLevels, let last = levels.last, last.width >= 40, last.height >= 24 {
            levels.append(StabilizationLumaPyramid.halve(last))
        }
        self.levels = levels
    }

    /// Area-averages rows `rows` of the `width` × `height` output from `plane` (`AreaDownscaler`).
    private static func downscale(
        _ plane: Plane, rows: Range<Int>, width: Int, height: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        let acc = UnsafeMutablePointer<UInt32>.allocate(capacity: plane.width)
        defer { acc.deallocate() }
        AreaDownscaler.downscale(plane, rows: rows, width: width, height: height, into: out, stride: width, accumulator: acc)
    }

    /// The next coarser level: 2 × 2 box average.
    private static func halve(_ level: Level) -> Level {
        let w = level.width / 2, h = level.height / 2
        var out = [Float](repeating: 0, count: w * h)
        level.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                let s = src.baseAddress!, d = dst.baseAddress!
                for y in 0..<h {
                    let r0 = s + 2 * y * level.width, r1 = r0 + level.width
                    for x in 0..<w {
                        d[y * w + x] = 0.25 * (r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1])
                    }
                }
            }
        }
        return Level(width: w, height: h, pixels: out)
    }
}
