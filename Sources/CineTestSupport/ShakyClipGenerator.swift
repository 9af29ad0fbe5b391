// ShakyClipGenerator: synthetic handheld clips with known motion for the stabilizer's tests and
// benchmarks — a crop window moving over a large procedural texture with band-limited jitter and
// an optional steady pan, with the exact window pose of every frame.

import CineMedia
import CineVision
import Foundation

/// A shaky clip: frame `t` shows the window of ``Configuration-swift.struct/width`` ×
/// ``Configuration-swift.struct/height`` pixels centred at `start + pan·t + jitter(t)` of a large
/// textured image, rotated by `rotationJitter(t)`.
///
/// The jitter on each axis is a sum of four sinusoids with seeded frequencies in
/// `jitterBand` (Hz) and seeded phases, each a quarter of ``Configuration-swift.struct/jitterAmplitude``,
/// so it is band-limited and never exceeds the amplitude. Frames are rendered on demand
/// (bilinear, I420); poses and exact frame-to-frame motions need no rendering.
public struct ShakyClipGenerator: Sendable {
    /// What to generate.
    public struct Configuration: Sendable, Equatable {
        /// Frame width in pixels (even).
        public var width: Int = 160
        /// Frame height in pixels (even).
        public var height: Int = 90
        /// Number of frames of the clip.
        public var frameCount: Int = 60
        /// Frames per second (sets what the jitter band means).
        public var frameRate: Double = 30
        /// Peak jitter of the window on each axis, in pixels.
        public var jitterAmplitude: Double = 3
        /// Frequency band of the jitter in Hz.
        public var jitterBand: ClosedRange<Double> = 2...6
        /// Peak rotation jitter in radians (0 = none).
        public var rotationJitter: Double = 0
        /// Steady pan of the window, in pixels per frame.
        public var panX: Double = 0
        /// Steady vertical pan of the window, in pixels per frame.
        public var panY: Double = 0
        /// Seed of the texture and the jitter.
        public var seed: UInt64 = 1

        /// The default clip: 160 × 90, 60 frames at 30 fps, ±3 px jitter at 2–6 Hz, no pan.
        public init() {}
    }

    /// The pose of the window in one frame.
    public struct Pose: Sendable, Equatable {
        /// Window centre minus the centre at frame 0, in texture pixels.
        public var x: Double
        /// Vertical offset, as ``x``.
        public var y: Double
        /// Rotation of the window in radians.
        public var rotation: Double

        /// Creates a pose.
        public init(x: Double, y: Double, rotation: Double) {
            self.x = x
            self.y = y
            self.rotation = rotation
        }
    }

    /// The clip's settings.
    public let configuration: Configuration
    private let textureWidth: Int
    private let textureHeight: Int
    private let luma: [UInt8]
    private let chromaU: [UInt8]
    private let chromaV: [UInt8]
    private let startX: Double
    private let startY: Double
    /// Frequencies (cycles per frame), phases and axis of the jitter terms: x, x, x, x, y, …, θ.
    private let terms: [(frequency: Double, phase: Double)]

    /// Builds the texture. Throws for an empty or odd-sized frame, no frames, or bad jitter.
    public init(configuration: Configuration = Configuration()) throws {
        let c = configuration
        guard c.width > 0, c.height > 0 else { throw StabilizationError.emptyFrame(width: c.width, height: c.height) }
        guard c.width % 2 == 0, c.height % 2 == 0 else {
            throw StabilizationError.invalidSetting(
                field: "size", message: "\(c.width)x\(c.height) must be even for I420")
        }
        guard c.frameCount > 0 else {
            throw StabilizationError.invalidSetting(field: "frameCount", message: "needs at least 1 frame")
        }
        guard c.frameRate > 0, c.jitterAmplitude >= 0, c.jitterBand.lowerBound > 0,
            c.jitterBand.upperBound < c.frameRate / 2
        else {
            throw StabilizationError.invalidSetting(
                field: "jitter",
                message: "needs a positive frame rate, amplitude ≥ 0 and a band inside (0, frameRate/2)")
        }
        self.configuration = c
        var random = SeededRandom(seed: c.seed)
        terms = (0..<12).map { _ in
            (random.uniform(c.jitterBand.lowerBound, c.jitterBand.upperBound) / c.frameRate, random.uniform(0, 2 * .pi))
        }
        let diagonal = Double(max(c.width, c.height))
        let margin = Int((c.jitterAmplitude + c.rotationJitter * diagonal).rounded(.up)) + 8
        let travelX = Int((abs(c.panX) * Double(c.frameCount)).rounded(.up))
        let travelY = Int((abs(c.panY) * Double(c.frameCount)).rounded(.up))
        let tw = (c.width + 2 * margin + travelX + 1) & ~1, th = (c.height + 2 * margin + travelY + 1) & ~1
        textureWidth = tw
        textureHeight = th
        startX = Double(tw) / 2 - c.panX * Double(c.frameCount - 1) / 2
        startY = Double(th) / 2 - c.panY * Double(c.frameCount - 1) / 2
        let noise = ValueNoise(salt: c.seed &* 0x9E37_79B9 &+ 17)
        let edges = ValueNoise(salt: c.seed &* 0x9E37_79B9 &+ 29)
        var y = [UInt8](repeating: 0, count: tw * th)
        for j in 0..<th {
            for i in 0..<tw {
                let n = noise.fractal(Double(i), Double(j), cell: 12, octaves: 3)
                let e = edges.sample(Double(i), Double(j), cell: 5) > 0.5 ? 30.0 : -30.0
                y[j * tw + i] = UInt8(max(16, min(235, 128 + (n - 0.5) * 380 + e)))
            }
        }
        let cw = tw / 2, ch = th / 2
        let tintU = ValueNoise(salt: c.seed &+ 101), tintV = ValueNoise(salt: c.seed &+ 202)
        var u = [UInt8](repeating: 128, count: cw * ch), v = u
        for j in 0..<ch {
            for i in 0..<cw {
                u[j * cw + i] = UInt8(128 + (tintU.sample(Double(i), Double(j), cell: 10) - 0.5) * 80)
                v[j * cw + i] = UInt8(128 + (tintV.sample(Double(i), Double(j), cell: 10) - 0.5) * 80)
            }
        }
        luma = y
        chromaU = u
        chromaV = v
    }

    /// The pose of the window in frame `t`, relative to frame 0's centre.
    public func pose(at t: Int) -> Pose {
        let p = absolutePose(t), p0 = absolutePose(0)
        return Pose(x: p.x - p0.x, y: p.y - p0.y, rotation: p.rotation)
    }

    /// The exact motion of the scene from frame `i` to frame `j`, in the convention of
    /// ``MotionEstimator`` (full-resolution pixels about the frame centre).
    public func motion(from i: Int, to j: Int) -> SimilarityTransform {
        let a = absolutePose(i), b = absolutePose(j)
        // q_j = R(θi − θj)·q_i + R(−θj)·(c_i − c_j)
        let dx = a.x - b.x, dy = a.y - b.y
        let c = cos(-b.rotation), s = sin(-b.rotation)
        return SimilarityTransform(dx: c * dx - s * dy, dy: s * dx + c * dy, rotation: a.rotation - b.rotation)
    }

    /// Exact motions into each frame (`[0]` is identity), as the smoother takes them.
    public var motions: [SimilarityTransform] {
        (0..<configuration.frameCount).map { $0 == 0 ? .identity : motion(from: $0 - 1, to: $0) }
    }

    /// Renders frame `t` as I420 (bilinear from the texture), in a buffer from `pool` if given.
    public func frame(at t: Int, pool: ImagePool? = nil) -> Image {
        let c = configuration
        let image =
            pool?.makeImage(width: c.width, height: c.height, format: .i420)
            ?? Image(width: c.width, height: c.height, format: .i420)
        let p = absolutePose(t)
        let cosR = cos(p.rotation), sinR = sin(p.rotation)
        let sources: [(texture: [UInt8], width: Int, height: Int, ratio: Double)] = [
            (luma, textureWidth, textureHeight, 1), (chromaU, textureWidth / 2, textureHeight / 2, 0.5),
            (chromaV, textureWidth / 2, textureHeight / 2, 0.5),
        ]
        for (index, source) in sources.enumerated() {
            let plane = image.plane(index)
            let r = source.ratio
            source.texture.withUnsafeBufferPointer { tex in
                let t = tex.baseAddress!
                for j in 0..<plane.height {
                    let row = plane.row(j, as: UInt8.self)
                    for i in 0..<plane.width {
                        // Frame point about the centre (full-resolution units), into the texture.
                        let qx = (Double(i) + 0.5) / r - Double(c.width) / 2
                        let qy = (Double(j) + 0.5) / r - Double(c.height) / 2
                        let px = (cosR * qx - sinR * qy + p.x) * r - 0.5
                        let py = (sinR * qx + cosR * qy + p.y) * r - 0.5
                        row[i] = ShakyClipGenerator.sample(t, source.width, source.height, px, py)
                    }
                }
            }
        }
        return image
    }

    private func absolutePose(_ t: Int) -> Pose {
        let c = configuration
        let ft = Double(t)
        func jitter(_ axis: Int) -> Double {
            var sum = 0.0
            for k in 0..<4 {
                let term = terms[axis * 4 + k]
                sum += sin(2 * .pi * term.frequency * ft + term.phase)
            }
            return sum / 4
        }
        return Pose(
            x: startX + c.panX * ft + c.jitterAmplitude * jitter(0),
            y: startY + c.panY * ft + c.jitterAmplitude * jitter(1),
            rotation: c.rotationJitter * jitter(2))
    }

    private static func sample(_ t: UnsafePointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> UInt8 {
        let cx = min(max(x, 0), Double(w - 1) - 1e-9), cy = min(max(y, 0), Double(h - 1) - 1e-9)
        let x0 = Int(cx), y0 = Int(cy)
        let fx = cx - Double(x0), fy = cy - Double(y0)
        let r0 = t + y0 * w + x0, r1 = r0 + w
        let top = Double(r0[0]) + (Double(r0[1]) - Double(r0[0])) * fx
        let bottom = Double(r1[0]) + (Double(r1[1]) - Double(r1[0])) * fx
        return UInt8(max(0, min(255, (top + (bottom - top) * fy).rounded())))
    }
}
