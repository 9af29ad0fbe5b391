// DepthExporter: a take's disparity track written as frame sequences other tools read — 16-bit
// PNG (the asset's own samples), PFM disparity, PFM depth in metres — with the camera sidecar
// and optionally each frame's metadata. `cinegraph export` and the editor's Export button run it.
import CineMedia
import Foundation

/// Writes the disparity of a cinematic asset into a folder (docs/export.md).
public struct DepthExporter: Sendable {
    /// The sequences to write.
    public enum Format: String, Sendable, CaseIterable {
        /// disparity-NNNNNN.png: 16-bit grey, the asset's samples bit for bit.
        case png16
        /// disparity-NNNNNN.pfm (and depth-NNNNNN.pfm when the camera is known): float32.
        case pfm
    }

    /// What was written.
    public struct Summary: Sendable {
        /// Frames exported, and the sequences' size.
        public var frames: Int
        public var width: Int
        public var height: Int
        /// True when depth in metres was written (the asset knows focal length and baseline).
        public var hasDepth: Bool
    }

    /// The asset to read.
    public let asset: String
    /// The sequences to write.
    public var formats: Set<Format> = [.png16, .pfm]
    /// Also write metadata.jsonl (each frame's time, focus, detections, scene).
    public var metadata = false

    /// An exporter of `asset`.
    public init(asset: String) { self.asset = asset }

    /// Writes the sequences, camera.json and (optionally) metadata.jsonl into `folder`, created if missing.
    /// - Throws: ``GStreamerError`` naming the asset when it is not one or has no disparity track,
    ///   or naming the folder when it cannot be written.
    public func export(to folder: String) throws -> Summary {
        let header = try AssetTrackReader.readMetadataStart(path: asset).0
        guard let w = header.disparityWidth, let h = header.disparityHeight else {
            throw GStreamerError(element: nil, message: "\(asset) has no disparity track: record it with the asset node's disparity input connected")
        }
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
            throw GStreamerError(element: nil, message: "\(folder): cannot create the folder (\(error.localizedDescription))")
        }
        let dir = URL(fileURLWithPath: folder)
        let track = try AssetTrackReader(path: asset, track: .disparity)
        let png = formats.contains(.png16)
            ? try VideoSinkPipeline(
                tail: "video/x-raw,format=GRAY16_BE ! pngenc compression-level=1 ! multifilesink location="
                    + Pipeline.quoted(dir.appendingPathComponent("disparity-%06d.png").path),
                format: .gray16, width: w, height: h, fps: header.fps)
            : nil
        let metres = header.focalLengthPixels.flatMap { f in header.baselineMetres.map { (f, $0) } }
        var timestamps: [Double] = []
        while let (samples, t) = try track.nextImage(timeout: 30) {
            let name = String(format: "%06d", timestamps.count)
            timestamps.append(t.seconds)
            try png?.push(samples, at: t)
            guard formats.contains(.pfm) else { continue }
            let map = DisparityMap(quantized: samples, scale: header.disparityScale,
                                   referenceWidth: header.referenceWidth, referenceHeight: header.referenceHeight)
            try PortableFloatMap(values: map.values).write(to: dir.appendingPathComponent("disparity-\(name).pfm").path)
            if let (f, b) = metres {
                try PortableFloatMap(values: map.depthMetres(focalLengthPixels: f, baselineMetres: b))
                    .write(to: dir.appendingPathComponent("depth-\(name).pfm").path)
            }
        }
        if let png, try !png.finish(timeout: 60) {
            throw GStreamerError(element: "pngenc", message: "\(folder): the PNG encoder did not finish within 60 s")
        }
        var files: [String: String] = [:]
        if formats.contains(.png16) {
            files["disparity-%06d.png"] = "16-bit grey: disparity in reference pixels × \(Int(header.disparityScale)); 0 = invalid"
        }
        if formats.contains(.pfm) {
            files["disparity-%06d.pfm"] = "float32: disparity in reference pixels; +inf = invalid"
            if metres != nil { files["depth-%06d.pfm"] = "float32: depth in metres, focal × baseline / disparity; +inf = invalid" }
        }
        if metadata {
            files["metadata.jsonl"] = "one JSON object per frame: time (s), focus, detections, scene"
            try writeMetadata(to: dir.appendingPathComponent("metadata.jsonl"))
        }
        let sidecar = DepthExportSidecar(
            source: asset, frames: timestamps.count, fps: header.fps, referenceWidth: header.referenceWidth,
            referenceHeight: header.referenceHeight, width: w, height: h, focalLengthPixels: header.focalLengthPixels,
            baselineMetres: header.baselineMetres, files: files, pngScale: header.disparityScale, timestamps: timestamps)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(sidecar).write(to: dir.appendingPathComponent("camera.json"))
        return Summary(frames: timestamps.count, width: w, height: h, hasDepth: formats.contains(.pfm) && metres != nil)
    }

    /// Every metadata record as one JSON line: time in seconds, focus, detections, scene.
    private func writeMetadata(to url: URL) throws {
        let reader = try AssetTrackReader(path: asset, track: .metadata)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        var out = Data()
        struct Line: Encodable {
            var time: Double
            var focus: FocusState?
            var detections: [Detection]
            var scene: [String]
        }
        while let r = try reader.nextRecord(timeout: 30) {
            out.append(try encoder.encode(Line(time: Double(r.time) / 1e9, focus: r.focus, detections: r.detections,
                                               scene: r.sceneStatus)))
            out.append(0x0A)
        }
        try out.write(to: url)
    }
}
