// `cinegraph export`: a take's disparity as frame sequences other tools read (16-bit PNG, PFM,
// depth in metres), with a sidecar JSON of the camera model, and optionally its metadata.
import ArgumentParser
import CineGStreamer
import CineMedia
import Foundation

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export a cinematic asset's disparity (and depth) as frame sequences.",
        discussion: """
            Writes into DIR, per frame (index from 0): disparity-NNNNNN.png — 16-bit grey, the \
            asset's own samples (disparity in reference pixels × 64, 0 = invalid), bit for bit; \
            disparity-NNNNNN.pfm — float32 disparity in reference pixels (+inf = invalid); and, \
            when the asset knows its focal length and baseline, depth-NNNNNN.pfm — metres (+inf = \
            invalid). camera.json describes the camera and the files. --metadata adds \
            metadata.jsonl: each frame's focus and detections. See docs/export.md.
            """)

    @Argument(help: "The cinematic asset (.cine.mkv).") var asset: String
    @Option(help: "Folder to write the depth sequence into (created if missing).") var depth: String
    @Option(help: "Formats, comma-separated: png16, pfm.") var formats: String = "png16,pfm"
    @Flag(help: "Also write metadata.jsonl (each frame's time, focus and detections).") var metadata = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        let chosen = Set(formats.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        guard !chosen.isEmpty, chosen.isSubset(of: ["png16", "pfm"]) else {
            throw ValidationError("--formats takes png16 and/or pfm, got '\(formats)'")
        }
        let header: AssetHeader
        do {
            header = try AssetTrackReader.readMetadataStart(path: asset).0
        } catch {
            throw ToolError("\(error)")
        }
        guard let w = header.disparityWidth, let h = header.disparityHeight else {
            throw ToolError("\(asset) has no disparity track: record it with the asset node's disparity input connected")
        }
        do {
            try FileManager.default.createDirectory(atPath: depth, withIntermediateDirectories: true)
        } catch {
            throw ToolError("\(depth): cannot create the folder (\(error.localizedDescription))")
        }
        let folder = URL(fileURLWithPath: depth)
        let track = try AssetTrackReader(path: asset, track: .disparity)
        let png = chosen.contains("png16")
            ? try VideoSinkPipeline(
                tail: "video/x-raw,format=GRAY16_BE ! pngenc compression-level=1 ! multifilesink location="
                    + Pipeline.quoted(folder.appendingPathComponent("disparity-%06d.png").path),
                format: .gray16, width: w, height: h, fps: header.fps)
            : nil
        let metres = header.focalLengthPixels.flatMap { f in header.baselineMetres.map { (f, $0) } }
        var timestamps: [Double] = []
        while let (samples, t) = try track.nextImage(timeout: 30) {
            let name = String(format: "%06d", timestamps.count)
            timestamps.append(t.seconds)
            try png?.push(samples, at: t)
            guard chosen.contains("pfm") else { continue }
            let map = DisparityMap(quantized: samples, scale: header.disparityScale,
                                   referenceWidth: header.referenceWidth, referenceHeight: header.referenceHeight)
            try PortableFloatMap(values: map.values).write(to: folder.appendingPathComponent("disparity-\(name).pfm").path)
            if let (f, b) = metres {
                try PortableFloatMap(values: map.depthMetres(focalLengthPixels: f, baselineMetres: b))
                    .write(to: folder.appendingPathComponent("depth-\(name).pfm").path)
            }
        }
        if let png, try !png.finish(timeout: 60) {
            throw ToolError("\(depth): the PNG encoder did not finish within 60 s")
        }
        var files: [String: String] = [:]
        if chosen.contains("png16") {
            files["disparity-%06d.png"] = "16-bit grey: disparity in reference pixels × \(Int(header.disparityScale)); 0 = invalid"
        }
        if chosen.contains("pfm") {
            files["disparity-%06d.pfm"] = "float32: disparity in reference pixels; +inf = invalid"
            if metres != nil { files["depth-%06d.pfm"] = "float32: depth in metres, focal × baseline / disparity; +inf = invalid" }
        }
        if metadata {
            files["metadata.jsonl"] = "one JSON object per frame: time (s), focus, detections, scene"
            try writeMetadata(to: folder.appendingPathComponent("metadata.jsonl"))
        }
        let sidecar = DepthExportSidecar(
            source: asset, frames: timestamps.count, fps: header.fps, referenceWidth: header.referenceWidth,
            referenceHeight: header.referenceHeight, width: w, height: h, focalLengthPixels: header.focalLengthPixels,
            baselineMetres: header.baselineMetres, files: files, pngScale: header.disparityScale, timestamps: timestamps)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(sidecar).write(to: folder.appendingPathComponent("camera.json"))
        if !quiet {
            printError("exported \(timestamps.count) frames of \(w)x\(h) disparity"
                + (metres == nil ? " (no depth: the asset does not know its focal length and baseline)" : " and depth")
                + " → \(depth)")
        }
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
