// MatteEdgeQuality: how clean a person's edge is, measured without a hand-drawn mask — flicker of
// the matte on a still subject, and how much of one layer's colour the render lets reach the other
// (a halo of the subject on the blurred background, the background bleeding into the sharp subject),
// found by changing one layer's colours and seeing which pixels of the other change.
import CineMedia
import CineVision

/// Edge-quality measures for a person matte and a render that uses it (tests and benchmarks).
public enum MatteEdgeQuality {
    /// The matte (`gray8`, any size) at `width`×`height`, bilinear, as true where it is ≥ ½.
    public static func subject(_ matte: Image, width: Int, height: Int) -> [Bool] {
        let p = matte.plane(0)
        let sx = Double(matte.width) / Double(width), sy = Double(matte.height) / Double(height)
        var out = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            let fy = (Double(y) + 0.5) * sy - 0.5
            for x in 0..<width {
                out[y * width + x] = RGBSampler.bilinear(p, (Double(x) + 0.5) * sx - 0.5, fy, channels: 1, channel: 0) >= 127.5
            }
        }
        return out
    }

    /// `image` (RGBA) with camera-like noise: each colour sample moved by up to ±`amplitude`
    /// levels, seeded, so a still subject can be filmed frame after frame.
    public static func noisy(_ image: Image, amplitude: Int, seed: UInt64) -> Image {
        precondition(image.format == .rgba8)
        var random = SeededRandom(seed: seed)
        let out = Image(width: image.width, height: image.height, format: .rgba8)
        for y in 0..<image.height {
            let s = image.plane(0).row(y, as: UInt8.self), d = out.plane(0).row(y, as: UInt8.self)
            for x in 0..<image.width * 4 {
                let n = x % 4 == 3 ? 0 : random.index(below: 2 * amplitude + 1) - amplitude
                d[x] = UInt8(max(0, min(255, Int(s[x]) + n)))
            }
        }
        return out
    }

    /// Each pixel's distance (pixels, 3-4 chamfer) to the nearest pixel on the other side of `mask`.
    public static func distanceToEdge(_ mask: [Bool], width w: Int, height h: Int) -> [Float] {
        let far: Float = 1e9
        var d = [Float](repeating: far, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if (x > 0 && mask[i - 1] != mask[i]) || (x < w - 1 && mask[i + 1] != mask[i])
                    || (y > 0 && mask[i - w] != mask[i]) || (y < h - 1 && mask[i + w] != mask[i]) { d[i] = 0.5 }
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if x > 0 { d[i] = min(d[i], d[i - 1] + 1) }
                if y > 0 {
                    d[i] = min(d[i], d[i - w] + 1)
                    if x > 0 { d[i] = min(d[i], d[i - w - 1] + 1.4142) }
                    if x < w - 1 { d[i] = min(d[i], d[i - w + 1] + 1.4142) }
                }
            }
        }
        for y in stride(from: h - 1, through: 0, by: -1) {
            for x in stride(from: w - 1, through: 0, by: -1) {
                let i = y * w + x
                if x < w - 1 { d[i] = min(d[i], d[i + 1] + 1) }
                if y < h - 1 {
                    d[i] = min(d[i], d[i + w] + 1)
                    if x < w - 1 { d[i] = min(d[i], d[i + w + 1] + 1.4142) }
                    if x > 0 { d[i] = min(d[i], d[i + w - 1] + 1.4142) }
                }
            }
        }
        return d
    }

    /// Mean absolute frame-to-frame change of consecutive mattes (`gray8`, one size) over the
    /// pixels within `radius` matte pixels of the first matte's edge, as a share of full scale.
    public static func flicker(_ mattes: [Image], radius: Float = 2) -> Double {
        guard mattes.count > 1, let first = mattes.first else { return 0 }
        let w = first.width, h = first.height
        let mask = subject(first, width: w, height: h)
        let dist = distanceToEdge(mask, width: w, height: h)
        var sum = 0.0, count = 0
        for (a, b) in zip(mattes, mattes.dropFirst()) {
            for y in 0..<h {
                let ra = a.plane(0).row(y, as: UInt8.self), rb = b.plane(0).row(y, as: UInt8.self)
                for x in 0..<w where dist[y * w + x] <= radius {
                    sum += abs(Double(ra[x]) - Double(rb[x]))
                    count += 1
                }
            }
        }
        return count == 0 ? 0 : sum / Double(count) / 255
    }

    /// What one layer's colour does to the other layer's pixels in a render.
    public struct Leak: Sendable, CustomStringConvertible {
        /// Share of the measured pixels that moved by more than 2 levels (any of R, G, B).
        public var share: Double
        /// Their mean change over the mean change made to the other layer (0 = none reaches them).
        public var ratio: Double
        /// How many pixels were measured.
        public var pixels: Int
        public var description: String { String(format: "%.2f %% of %d px moved > 2 levels, %.3f %% of the change", share * 100, pixels, ratio * 100) }
    }

    /// Which layer to measure.
    public enum Side: Sendable { case outside, inside }

    /// The leak into `side` of `subject` (true = subject) at distances (`margin`, `margin + band`]
    /// pixels from its edge: the other side's colours are inverted, both frames rendered by
    /// `render`, and the measured pixels compared. `frame` is RGBA at the mask's size.
    /// `outside` finds a halo of the subject's colour on the background; `inside` the
    /// background's colour bleeding into the subject.
    public static func leak(into side: Side, of subject: [Bool], frame: Image, margin: Float = 2, band: Float = 10,
                            render: (Image) throws -> Image) rethrows -> Leak {
        precondition(frame.format == .rgba8 && subject.count == frame.width * frame.height)
        let w = frame.width, h = frame.height
        let changed = Image(width: w, height: h, format: .rgba8)
        var perturbation = 0.0, perturbed = 0
        for y in 0..<h {
            let src = frame.plane(0).row(y, as: UInt8.self), dst = changed.plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                let other = subject[y * w + x] == (side == .outside)
                for c in 0..<3 {
                    let v = src[4 * x + c]
                    dst[4 * x + c] = other ? 255 - v : v
                    if other { perturbation += abs(255 - 2 * Double(v)); perturbed += 1 }
                }
                dst[4 * x + 3] = src[4 * x + 3]
            }
        }
        let a = try render(frame), b = try render(changed)
        let dist = distanceToEdge(subject, width: w, height: h)
        var moved = 0, count = 0, change = 0.0
        for y in 0..<h {
            let ra = a.plane(0).row(y, as: UInt8.self), rb = b.plane(0).row(y, as: UInt8.self)
            for x in 0..<w {
                let i = y * w + x
                guard subject[i] == (side == .inside), dist[i] > margin, dist[i] <= margin + band else { continue }
                var worst = 0.0
                for c in 0..<3 {
                    let d = abs(Double(ra[4 * x + c]) - Double(rb[4 * x + c]))
                    worst = max(worst, d)
                    change += d
                }
                if worst > 2 { moved += 1 }
                count += 1
            }
        }
        let meanPerturbation = perturbation / Double(max(perturbed, 1))
        return Leak(share: Double(moved) / Double(max(count, 1)),
                    ratio: change / Double(max(count * 3, 1)) / max(meanPerturbation, 1e-9), pixels: count)
    }
}
