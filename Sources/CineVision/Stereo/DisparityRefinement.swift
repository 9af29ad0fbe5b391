// DisparityRefinement: the clean-up after matching at processing resolution, after the
// SpeckleFilter — hole filling with the background, and temporal smoothing that does not lag on
// motion.

/// Post-processing of a processing-resolution disparity map (negative values are invalid).
enum DisparityRefinement {
    /// Fills invalid pixels of `rows`: each invalid run takes the smaller (farther) of the valid
    /// disparities at its two ends — occluded pixels belong to the background; a run touching
    /// the border takes its one neighbour. Rows with no valid pixel are left for
    /// ``fillEmptyRows(_:width:height:)``. Confidence of filled pixels stays 0.
    /// Cost: one pass over the row, ≈ 3 ops per pixel.
    static func fillHoles(_ d: UnsafeMutablePointer<Float>, width: Int, rows: Range<Int>) {
        for y in rows {
            let row = d + y * width
            var x = 0
            while x < width {
                if row[x] >= 0 { x += 1; continue }
                let start = x
                while x < width && row[x] < 0 { x += 1 }
                let leftValue: Float? = start > 0 ? row[start - 1] : nil
                let rightValue: Float? = x < width ? row[x] : nil
                let fill: Float
                switch (leftValue, rightValue) {
                case let (l?, r?): fill = Swift.min(l, r)
                case let (l?, nil): fill = l
                case let (nil, r?): fill = r
                case (nil, nil): continue
                }
                for i in start..<x { row[i] = fill }
            }
        }
    }

    /// Copies the nearest filled row into rows that had no valid pixel at all (rare: a blank
    /// band); if nothing is valid anywhere, sets everything to 0.
    static func fillEmptyRows(_ d: UnsafeMutablePointer<Float>, width: Int, height: Int) {
        var lastGood = -1
        var pending: [Int] = []
        for y in 0..<height {
            if d[y * width] >= 0 {
                for p in pending { (d + p * width).update(from: d + y * width, count: width) }
                pending.removeAll()
                lastGood = y
            } else if lastGood >= 0 {
                (d + y * width).update(from: d + lastGood * width, count: width)
            } else {
                pending.append(y)
            }
        }
        for p in pending { (d + p * width).update(repeating: 0, count: width) }
    }

    /// Temporal smoothing: where the luma moved by less than `lumaTolerance` and the new
    /// disparity is within `disparityTolerance` of the previous one, blends
    /// `previous + (1 − strength)(new − previous)`; elsewhere takes the new value at once, so
    /// moving things do not lag. Updates `previous` and `previousLuma` to the result.
    /// Cost: ≈ 10 ops per pixel, 10 bytes touched.
    static func smooth(
        _ d: UnsafeMutablePointer<Float>, luma: UnsafePointer<UInt8>, previous: UnsafeMutablePointer<Float>,
        previousLuma: UnsafeMutablePointer<UInt8>, count: Int, strength: Float,
        lumaTolerance: Int = 12, disparityTolerance: Float = 1
    ) {
        let keep = strength, take = 1 - strength
        for i in 0..<count {
            let new = d[i], old = previous[i]
            let still = abs(Int(luma[i]) - Int(previousLuma[i])) < lumaTolerance
            let v = (still && abs(new - old) <= disparityTolerance) ? keep * old + take * new : new
            d[i] = v
            previous[i] = v
            previousLuma[i] = luma[i]
        }
    }
}
