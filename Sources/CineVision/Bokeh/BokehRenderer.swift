// BokehRenderer: the fast renderer — synthetic shallow depth of field on I420 frames from a
// disparity map, occlusion-aware, in linear light, large blurs at reduced resolution.
import CineMedia

/// Renders shallow depth of field into I420 video frames and RGBA stills.
///
/// **Camera model.** Each pixel's signed circle of confusion is
/// `c = K · (d − d_f) / N` pixels (``LensModel``), clamped to ±``Settings/maxBlur`` × height.
///
/// **Algorithm** (a layered, occlusion-aware gather; every step is deterministic and continuous
/// in its inputs, so a static scene renders identically frame after frame):
/// 1. The frame is box-averaged to the *working resolution* (1/1, 1/2 or 1/4, chosen from the
///    largest radius and ``BokehQuality``), converted to linear RGB and highlight-boosted
///    (``BokehColorSpace``).
/// 2. Each working pixel is split between a *sharp* share (CoC under half a working pixel,
///    rendered later at full resolution) and a blurred share, which is divided between the
///    two nearest *blur layers* of radius `k · step` working pixels (linear weights, so radii
///    change smoothly).
/// 3. Each layer (premultiplied colour and coverage) is convolved with a disk of its radius —
///    exactly, via per-row prefix sums: `2r + 1` vector subtractions per pixel — and
///    composited back to front: layers behind the focal plane into a *background* buffer,
///    layers in front into a *foreground* buffer. The background is then normalised by its
///    coverage, which fills the holes left by sharp or nearer pixels from the surrounding
///    background, so a sharp subject never bleeds into the blurred background. The foreground
///    keeps its partial coverage, so a blurred foreground spreads over what is behind it.
/// 4. At full resolution, each pixel mixes the original (sharp) pixel with the bilinearly
///    upsampled blur by `t = (1 − α_foreground) · sharpness(c)`; in-focus detail is never
///    resampled. I420 frames are written directly (chroma at half resolution, the video fast
///    path); RGBA stills keep full chroma, and a pixel with `t = 1` is copied bit for bit.
///
/// With a disparity map at the image's resolution, step 1 splits each working block pixel by
/// pixel (only the pixels to be blurred enter its blurred colour), so a sharp subject's
/// colour never leaks into the background's blur through blocks on its outline.
///
/// The renderer keeps its scratch buffers between frames (no allocation in steady state) and
/// uses up to ``Settings/threads`` cores over row bands. Use one renderer from one thread at
/// a time.
public struct BokehRenderer {
    /// The knobs of the renderer.
    public struct Settings: Sendable, Hashable {
        /// The camera model.
        public var lens = LensModel()
        /// The largest blur radius, as a fraction of the image height (0.03 = 32 px at 1080p).
        public var maxBlur = 0.03
        /// Speed / fidelity preset.
        public var quality = BokehQuality.standard
        /// Extra gain for near-white pixels (0 = none); see ``BokehColorSpace``.
        public var highlightBoost = 3.0
        /// Cores to use (1 = run on the calling thread only).
        public var threads = 2
        /// A disparity map at half the image's resolution or coarser (the stereo matcher's quarter
        /// resolution) is first brought to the image's resolution by ``GuidedDepthUpsampler``, so
        /// depth outlines fall on the image's own edges (`CineBench depth`: +0.3 to +0.4 dB against
        /// the render from the exact disparity on the synthetic takes, none on a real pair; about
        /// 2.3 ms more a 720p frame). A finer map, or
        /// this off: the map is interpolated bilinearly as it is read.
        public var guidedUpsampling = true
        /// Creates the default settings.
        public init() {}
    }

    /// The settings used for the next frame.
    public var settings: Settings
    private let workspace = BokehWorkspace()

    /// Creates a renderer.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The largest blur radius in pixels for an image `height` pixels tall.
    public func maxRadius(height: Int) -> Double { settings.maxBlur * Double(height) }

    /// Checks that `image` and `disparity` can be rendered together at `fNumber` with focus
    /// at `focusDisparity`; throws the ``BokehError`` that ``render(_:disparity:focusDisparity:fNumber:pool:)``
    /// would throw for the frame's shape (NaNs are found while rendering).
    public static func check(image: Image, disparity: DisparityMap, focusDisparity: Double, fNumber: Double) throws(BokehError) {
        guard (image.format == .i420 && image.width % 2 == 0 && image.height % 2 == 0)
                || (image.format == .rgba8 && image.width > 0 && image.height > 0) else {
            throw .unsupportedImage(format: image.format.rawValue, width: image.width, height: image.height)
        }
        guard LensModel.fNumberRange.contains(fNumber) else { throw .apertureOutOfRange(fNumber) }
        guard focusDisparity.isFinite else { throw .invalidFocus(focusDisparity) }
        let iw = Double(image.width), ih = Double(image.height)
        let mw = Double(disparity.values.width), mh = Double(disparity.values.height)
        // Same aspect within one map pixel's worth (scaled maps round their sides).
        let tolerance = 1.0 / min(mw, mh) + 1.0 / min(iw, ih) + 1e-9
        if abs((mw / mh) / (iw / ih) - 1) > tolerance {
            throw .aspectRatioMismatch(imageWidth: image.width, imageHeight: image.height,
                                       mapWidth: disparity.values.width, mapHeight: disparity.values.height)
        }
    }

    /// Renders `image` (I420, or RGBA for full-colour stills) with focus at `focusDisparity`
    /// (pixels of the disparity map's reference view) and aperture `fNumber`, into a new image
    /// of the same format from `pool`.
    ///
    /// Invalid disparity samples (`±inf`) are filled from their row's nearest valid samples
    /// (the farther of the two), so holes render as background.
    /// - Throws: ``BokehError`` for a map of another aspect ratio, NaNs, a map with no valid
    ///   sample, an aperture outside ``LensModel/fNumberRange``, or an image that is neither
    ///   I420 (even sides) nor RGBA.
    public func render(_ image: Image, disparity: DisparityMap, focusDisparity: Double, fNumber: Double,
                       pool: ImagePool? = nil) throws(BokehError) -> Image {
        let out = pool?.makeImage(width: image.width, height: image.height, format: image.format)
            ?? Image(width: image.width, height: image.height, format: image.format)
        try render(image, disparity: disparity, focusDisparity: focusDisparity, fNumber: fNumber, into: out)
        return out
    }

    /// Renders into `output`, an image of the same size and format as `image` (not the same buffer).
    public func render(_ image: Image, disparity: DisparityMap, focusDisparity: Double, fNumber: Double,
                       into output: Image) throws(BokehError) {
        try Self.check(image: image, disparity: disparity, focusDisparity: focusDisparity, fNumber: fNumber)
        precondition(output.width == image.width && output.height == image.height && output.format == image.format,
                     "output must have the image's size and format")
        let ws = workspace
        let W = image.width, H = image.height
        let maxR = max(0, maxRadius(height: H))
        let s = settings.quality.workingScale(maxRadius: maxR)
        let step = settings.quality.layerStep
        let w = (W + s - 1) / s, h = (H + s - 1) / s
        let layersPerSide = max(1, Int((maxR / Double(s) / Double(step)).rounded(.up)))
        ws.prepare(W: W, H: H, s: s, w: w, h: h, threads: max(1, settings.threads))

        var map = try ws.validatedDisparity(disparity, threads: settings.threads)
        if settings.guidedUpsampling, 2 * map.width <= W, 2 * map.height <= H {
            map = ws.guidedToFullResolution(map, image: image, threads: max(1, settings.threads))
        }
        let dScale = Double(W) / Double(disparity.referenceWidth)
        let params = BokehWorkspace.Parameters(
            k: Float(settings.lens.radiusPerDisparity(fNumber: fNumber) * dScale),
            focus: Float(focusDisparity), maxRadius: Float(maxR), scale: s, step: step,
            layersPerSide: layersPerSide, boost: Float(max(0, settings.highlightBoost)),
            sharpFrom: 0.5, sharpTo: Float(max(1.5, Double(s))))
        ws.downsample(image, map: map, params)
        ws.blurLayers(params)
        if image.format == .rgba8 {
            ws.finishWorking(params, rgb: true)
            ws.writeFullResolutionRGBA(image, map: map, params, into: output)
        } else {
            ws.finishWorking(params)
            ws.writeFullResolution(image, map: map, params, into: output)
        }
    }
}
