// DepthExport: a take's disparity for other tools — depth in metres from the stereo geometry,
// and the sidecar that says how to read the exported files.
import Foundation

extension DisparityMap {
    /// Depth in metres per sample, `Z = f · B / d`, with `f` the reference view's focal length
    /// in pixels and `d` the disparity in reference pixels (the map's units); `+inf` where the
    /// disparity is invalid or zero. A `float32` image at the map's resolution. Cost: one pass.
    public func depthMetres(focalLengthPixels f: Double, baselineMetres b: Double) -> Image {
        let w = values.width, h = values.height
        let out = Image(width: w, height: h, format: .float32)
        let fb = Float(f * b)
        for y in 0..<h {
            let src = values.plane(0).row(y, as: Float.self), dst = out.plane(0).row(y, as: Float.self)
            for x in 0..<w {
                let d = src[x]
                dst[x] = d.isFinite && d > 0 ? fb / d : .infinity
            }
        }
        return out
    }
}

/// The sidecar (`camera.json`) of an exported depth sequence: the camera model and how each
/// file's samples map to disparity and depth.
public struct DepthExportSidecar: Codable, Sendable, Equatable {
    /// Always `cinegraph-depth`.
    public var format = "cinegraph-depth"
    public var version = 1
    /// The asset the sequence came from.
    public var source: String
    public var frames: Int
    public var fps: Double
    /// Size of the reference (left) view the disparities are measured in.
    public var referenceWidth: Int
    public var referenceHeight: Int
    /// Size of the exported maps.
    public var width: Int
    public var height: Int
    /// Focal length of the reference view in pixels at the reference size, when known.
    public var focalLengthPixels: Double?
    /// Stereo baseline in metres, when known.
    public var baselineMetres: Double?
    /// What each file pattern holds (pattern → description), `%06d` = the frame index from 0.
    public var files: [String: String]
    /// 16-bit PNG samples: disparity in reference pixels = sample / `pngScale`; 0 = invalid.
    public var pngScale: Double
    /// Each frame's instant in seconds, by index.
    public var timestamps: [Double]

    /// Creates a sidecar.
    public init(source: String, frames: Int, fps: Double, referenceWidth: Int, referenceHeight: Int, width: Int,
                height: Int, focalLengthPixels: Double?, baselineMetres: Double?, files: [String: String],
                pngScale: Double, timestamps: [Double]) {
        self.source = source
        self.frames = frames
        self.fps = fps
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
        self.width = width
        self.height = height
        self.focalLengthPixels = focalLengthPixels
        self.baselineMetres = baselineMetres
        self.files = files
        self.pngScale = pngScale
        self.timestamps = timestamps
    }
}
