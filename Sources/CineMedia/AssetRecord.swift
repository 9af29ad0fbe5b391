// AssetRecord: the per-frame metadata of a cinematic asset, and the header that describes the
// asset's tracks — the JSON written to the asset's metadata track (see docs/asset.md).

/// Describes a cinematic asset: written as the first metadata record, before any frame.
public struct AssetHeader: Sendable, Hashable, Codable {
    /// Always `cinegraph-asset`.
    public var format = "cinegraph-asset"
    /// Format version; readers reject versions they do not know.
    public var version = 1
    /// Size of the reference (left) view, which the video track holds.
    public var referenceWidth: Int
    public var referenceHeight: Int
    /// Size of the disparity track, when there is one.
    public var disparityWidth: Int?
    public var disparityHeight: Int?
    /// Stored disparity sample = round(disparity × scale), 0 = invalid (see ``AssetHeader/disparityScale``).
    public var disparityScale: Double = AssetHeader.defaultDisparityScale
    /// Frames from one disparity keyframe to the next: 1 when every frame decodes alone (assets
    /// written since the editor; older ones leave it out).
    public var disparityKeyframeInterval: Int?
    /// Frames per second of the recording.
    public var fps: Double
    /// Focal length of the reference view in pixels, when known (turns f-numbers into blur).
    public var focalLengthPixels: Double?
    /// Stereo baseline in metres, when known.
    public var baselineMetres: Double?
    /// Size of the pair track, when there is one: both views' luma at a quarter of the size, side by side
    /// (H.264, ``KeptPair``), kept so that depth can be matched again after the take
    /// (`cinegraph render --repair`). Assets with it also have a disparity track.
    public var pairWidth: Int?
    public var pairHeight: Int?
    /// Channels of the audio track (FLAC, in the order the device delivered them), when there is one.
    public var audioChannels: Int?
    /// Sample rate of the audio track in Hz, when there is one.
    public var audioSampleRate: Int?
    /// The stereo calibration the recording was made with, as the text of the calibration file
    /// (OpenCV FileStorage YAML/XML or ROS camera_info YAML), when one was given.
    public var calibration: String?

    /// 1/64 pixel steps: disparities up to 1023.98 px at 1/64 px precision in 16 bits.
    public static let defaultDisparityScale = 64.0

    /// Creates a header.
    public init(referenceWidth: Int, referenceHeight: Int, disparityWidth: Int? = nil, disparityHeight: Int? = nil,
                fps: Double, focalLengthPixels: Double? = nil, baselineMetres: Double? = nil) {
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
        self.disparityWidth = disparityWidth
        self.disparityHeight = disparityHeight
        self.fps = fps
        self.focalLengthPixels = focalLengthPixels
        self.baselineMetres = baselineMetres
    }
}

/// The metadata of one frame of a cinematic asset.
public struct AssetFrameRecord: Sendable, Hashable, Codable {
    /// The frame's time in nanoseconds from the start of the recording.
    public var time: Int64
    /// The focus in force (focus disparity, f-number, target), when a focus node feeds the asset.
    public var focus: FocusState?
    /// Every detection of the frame, with IDs and focus modes.
    public var detections: [Detection]
    /// Scene statuses, by name (`notEnoughLight`).
    public var sceneStatus: [String]
    /// The nodes whose outputs were carried forward from an earlier frame for this one because the
    /// machine could not keep up live (`["disparity"]`: this frame's disparity is the last computed
    /// one); `nil` when everything was computed for it.
    public var carried: [String]?
    /// Which of the asset's inputs held a value carried forward for this frame (`["disparity"]`:
    /// the map is an earlier frame's, moved with this one's stabilization if any); `nil` when
    /// none was (or the asset predates the field).
    public var carriedInputs: [String]?

    /// Creates a record.
    public init(time: Int64, focus: FocusState? = nil, detections: [Detection] = [], sceneStatus: [String] = [],
                carried: [String]? = nil) {
        self.time = time
        self.focus = focus
        self.detections = detections
        self.sceneStatus = sceneStatus
        self.carried = carried
    }
}

extension DisparityMap {
    /// The map as 16-bit samples for lossless storage: round(d × `scale`), clamped to 1…65535;
    /// invalid (non-finite or negative) samples become 0. Cost: one pass, 6 bytes per sample.
    public func quantized(scale: Double = AssetHeader.defaultDisparityScale, pool: ImagePool? = nil) -> Image {
        let w = values.width, h = values.height
        let out = pool?.makeImage(width: w, height: h, format: .gray16) ?? Image(width: w, height: h, format: .gray16)
        let src = values.plane(0), dst = out.plane(0)
        let s = Float(scale)
        for y in 0..<h {
            let a = src.row(y, as: Float.self), b = dst.row(y, as: UInt16.self)
            for x in 0..<w {
                let d = a[x]
                b[x] = d.isFinite && d >= 0 ? UInt16(min(65535, max(1, (d * s).rounded()))) : 0
            }
        }
        return out
    }

    /// A map from 16-bit samples written by ``quantized(scale:pool:)``: 0 becomes +infinity (invalid).
    public init(quantized samples: Image, scale: Double = AssetHeader.defaultDisparityScale,
                referenceWidth: Int, referenceHeight: Int) {
        precondition(samples.format == .gray16, "quantized disparity is gray16")
        let w = samples.width, h = samples.height
        let values = Image(width: w, height: h, format: .float32)
        let src = samples.plane(0), dst = values.plane(0)
        let inv = Float(1 / scale)
        for y in 0..<h {
            let a = src.row(y, as: UInt16.self), b = dst.row(y, as: Float.self)
            for x in 0..<w { b[x] = a[x] == 0 ? .infinity : Float(a[x]) * inv }
        }
        self.init(values: values, referenceWidth: referenceWidth, referenceHeight: referenceHeight)
    }
}
