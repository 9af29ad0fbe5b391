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
        let names = formats.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let chosen = Set(names.compactMap(DepthExporter.Format.init(rawValue:)))
        guard !names.isEmpty, chosen.count == Set(names).count else {
            throw ValidationError("--formats takes png16 and/or pfm, got '\(formats)'")
        }
        var exporter = DepthExporter(asset: asset)
        exporter.formats = chosen
        exporter.metadata = metadata
        let summary: DepthExporter.Summary
        do { summary = try exporter.export(to: depth) } catch let e as GStreamerError where e.element == nil {
            throw ToolError(e.message)
        } catch {
            throw ToolError("\(error)")
        }
        if !quiet {
            printError("exported \(summary.frames) frames of \(summary.width)x\(summary.height) disparity"
                + (summary.hasDepth ? " and depth"
                    : chosen.contains(.pfm) ? " (no depth: the asset does not know its focal length and baseline)" : "")
                + " → \(depth)")
        }
    }
}
