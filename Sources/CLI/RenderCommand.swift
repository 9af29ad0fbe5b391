// `cinegraph render`: re-renders a cinematic asset into an ordinary movie with the depth of field
// burned in — a new aperture or focus, the recording untouched.
import ArgumentParser
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Logging

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a cinematic asset to a movie with the bokeh burned in (new aperture or focus).",
        discussion: """
            Builds and runs the graph asset-source → bokeh → movie. Focus comes from the recording \
            (when it recorded a focus track), or from --focus-disparity / --focus-point, which \
            override it. Writes any container the movie node writes (.mp4, .mkv, .mov).
            """)

    @Argument(help: "The cinematic asset (.mkv) written by the `asset` node.") var asset: String
    @Option(name: .shortAndLong, help: "Output movie.") var output: String
    @Option(help: "Simulated aperture as an f-number (1.4 … 16); default: the changes file's, else the recording's, else 2.8.")
    var aperture: Double?
    @Option(help: "Changes file from `cinegraph script` (user focus decisions, aperture).") var changes: String?
    @Option(help: "Re-decide focus: speaker = whoever is talking (the recorded faces marked speaking), the racks landing just before each new speaker's first word; added to --changes as weak decisions.")
    var follow: FocusFollow?
    @Option(help: "Focus on this disparity (pixels of the full-resolution view).") var focusDisparity: Double?
    @Option(help: "Focus on the depth at this normalised point of the first frame, e.g. 0.5,0.4.") var focusPoint: String?
    @Option(help: "Bokeh quality: standard is faster than real time at 1080p, high about 0.8× real time.")
    var quality: BokehNode.Quality = .standard
    @Option(help: "x264 speed preset.") var preset: String = "veryfast"
    @Flag(help: "Repair a take a weak machine recorded first: the disparity maps it carried forward live re-made from the computed ones on either side, the faces found again on every frame, focus decided again; the repaired take is kept beside it as TAKE.repaired.cine.mkv (docs/asset.md#repairing-a-take).")
    var repair = false
    @Flag(help: "No status line.") var quiet = false
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = try logging.bootstrap()
        var asset = self.asset
        var audioFrom: String?
        var header: AssetHeader, first: AssetFrameRecord
        do {
            let metadata = try AssetTrackReader.readMetadataStart(path: asset)
            (header, first) = metadata
        } catch {
            throw ToolError("\(error)")
        }
        if repair {
            if changes != nil || follow != nil {
                throw ValidationError("--repair finds the faces again (with new IDs): render with --repair first, then edit or re-decide the repaired take (\(Self.repairedPath(of: asset)))")
            }
            guard header.disparityWidth != nil else {
                throw ValidationError("\(asset) has no disparity track: nothing to repair")
            }
            if header.audioChannels != nil { audioFrom = asset }  // the repaired take has no sound of its own
            asset = try Self.repairTake(asset, header: header, first: first, logger: logger, quiet: quiet)
            (header, first) = try AssetTrackReader.readMetadataStart(path: asset)
        }
        if let aperture, !CinematicScript.fNumberRange.contains(aperture) {
            let r = CinematicScript.fNumberRange
            throw ValidationError("--aperture \(aperture) is outside \(r.lowerBound)...\(r.upperBound)")
        }
        if (changes != nil || follow != nil) && (focusDisparity != nil || focusPoint != nil) {
            throw ValidationError("--changes and --follow re-decide focus; they cannot be combined with --focus-disparity or --focus-point")
        }
        guard header.disparityWidth != nil else {
            throw ValidationError("\(asset) has no disparity track: record it with the asset node's disparity input connected")
        }
        var focus = focusDisparity
        if let focusPoint {
            guard let point = NormalizedPoint(parsing: focusPoint), point.isInsideFrame else {
                throw ValidationError("--focus-point takes x,y in 0…1, got '\(focusPoint)'")
            }
            let track = try AssetTrackReader(path: asset, track: .disparity)
            guard let (samples, _) = try track.nextImage() else { throw ToolError("\(asset): empty disparity track") }
            let map = DisparityMap(quantized: samples, scale: header.disparityScale, referenceWidth: header.referenceWidth,
                                   referenceHeight: header.referenceHeight)
            guard let d = map.robustDisparity(at: point) else {
                throw ToolError("\(asset): no valid disparity at \(point) in the first frame")
            }
            focus = d
        }
        var changes = self.changes
        if follow == .speaker {
            changes = try Self.speakerChanges(asset: asset, adding: changes)
        }
        defer { if follow == .speaker, let changes { try? FileManager.default.removeItem(atPath: changes) } }
        let run = try Self.render(asset: asset, header: header, first: first, to: output, aperture: aperture,
                                  changes: changes, focusDisparity: focus, quality: quality, preset: preset,
                                  audioFrom: audioFrom, logger: logger, quiet: quiet)
        printError(SummaryTable.render(run.summary, graph: run.graph))
        let frames = run.frames(of: "movie")
        printError(String(format: "rendered %d frames in %.1f s (%.2f× real time at %g fps) → %@", frames, run.seconds,
                          Double(frames) / header.fps / max(run.seconds, 1e-6), header.fps, output))
        if run.aborted { throw ExitCode(130) }
    }

    /// Where `--repair` keeps the repaired take: `TAKE.repaired.cine.mkv` beside `TAKE.cine.mkv`.
    static func repairedPath(of asset: String) -> String {
        let base = asset.hasSuffix(".cine.mkv") ? String(asset.dropLast(9)) : asset.hasSuffix(".mkv") ? String(asset.dropLast(4)) : asset
        return base + ".repaired.cine.mkv"
    }

    /// Runs ``RepairGraph`` on `asset` into ``repairedPath(of:)`` and returns that path.
    static func repairTake(_ asset: String, header: AssetHeader, first: AssetFrameRecord, logger: Logger,
                           quiet: Bool) throws -> String {
        let output = repairedPath(of: asset)
        let totalFrames = quiet ? nil : (try? AssetTrackReader.readMetadata(path: asset))?.1.count
        let run = try ToolGraph.run(RepairGraph.spec(asset: asset, output: output, header: header, first: first),
                                    logger: logger, quiet: quiet,
                                    progress: totalFrames.map { (node: RepairGraph.progressNode, total: $0) })
        if run.aborted { throw ExitCode(130) }
        if !quiet { printError(SummaryTable.render(run.summary, graph: run.graph)) }
        if !quiet { printError("repaired \(run.frames(of: RepairGraph.progressNode)) frames (the carried disparity maps re-made, faces and focus found again) → \(output)") }
        return output
    }

    /// A temporary changes file: `userChanges` (if any) plus the speaker rule's decisions over
    /// the recorded take (``SpeakerDecisions``). Says so when nobody in the take was marked speaking.
    static func speakerChanges(asset: String, adding userChanges: String?) throws -> String {
        let header: AssetHeader, records: [AssetFrameRecord]
        do { (header, records) = try AssetTrackReader.readMetadata(path: asset) } catch { throw ToolError("\(error)") }
        guard records.contains(where: { $0.detections.contains { $0.speaking != nil } }) else {
            throw ToolError("\(asset): no face in the take was read for speaking (record it with the detector's landmark model, as graphs/interview.conf does)")
        }
        var edits = ScriptChanges()
        if let userChanges {
            do { edits = try ScriptChanges.load(contentsOf: userChanges) } catch { throw ToolError("\(error)") }
        }
        let frames = records.map { (time: Timestamp(nanoseconds: $0.time), detections: $0.detections) }
        // The recorded voice, where there is one: no voice, no speaker (docs/speaker.md).
        var sound: AudioBlock?
        if header.audioChannels != nil {
            do { sound = try AudioTrackReader.readMono(path: asset) } catch { throw ToolError("\(asset): its sound: \(error)") }
        }
        for d in SpeakerDecisions.decisions(frames: frames, voice: SpeakerDecisions.voice(of: sound)) {
            do { try edits.add(d) } catch { throw ToolError("\(error)") }
        }
        let path = NSTemporaryDirectory() + "cinegraph-speakers-\(getpid()).json"
        do { try edits.write(to: path) } catch { throw ToolError("\(error)") }
        return path
    }

    /// Renders `asset` to `output` through ``RenderGraph``, the audio kept.
    /// Focus comes from `focusDisparity` when given, else from the recorded script with
    /// `changes`. Shared by `render` and `demo`.
    static func render(asset: String, header: AssetHeader, first: AssetFrameRecord, to output: String,
                       aperture: Double?, changes: String?, focusDisparity focus: Double?, quality: BokehNode.Quality,
                       preset: String, audioFrom: String? = nil, logger: Logger, quiet: Bool) throws -> ToolRun {
        var request = RenderGraph.Request(asset: asset, output: output)
        request.aperture = aperture
        request.changes = changes
        request.focusDisparity = focus
        request.quality = quality
        request.preset = preset
        request.audioFrom = audioFrom
        let spec = RenderGraph.spec(request, header: header, first: first)
        // The frame count, for the progress bar (the metadata track alone is quick to read).
        let totalFrames = quiet ? nil : (try? AssetTrackReader.readMetadata(path: asset))?.1.count
        return try ToolGraph.run(spec, logger: logger, quiet: quiet,
                                 progress: totalFrames.map { (node: RenderGraph.progressNode, total: $0) })
    }
}
