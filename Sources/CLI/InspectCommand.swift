// `cinegraph inspect`: what a movie or cinematic asset holds.
import ArgumentParser
import CineGStreamer
import CineMedia
import CineVision
import Foundation

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Show what a movie or cinematic asset holds (tracks, frames, duration).",
        discussion: """
            For a cinematic asset, --plot writes an SVG chart of the take: the focus disparity over \
            time (yellow), every subject's disparity (one line per detection ID) and the focus \
            decisions — automatic ones dashed grey, yours (from --changes) yellow.
            """)

    @Argument(help: "Movie or asset files.") var files: [String]
    @Option(help: "Write an SVG plot of the asset's focus over time (one asset only).") var plot: String?
    @Option(help: "A changes file whose decisions the plot marks too.") var changes: String?

    func run() throws {
        if plot != nil && files.count != 1 { throw ValidationError("--plot draws one asset; give exactly one file") }
        var failed = false
        for file in files {
            do {
                let info = try MediaProbe.inspect(path: file, timeout: 60)
                print("\(file): \(info.width)x\(info.height), \(info.frameCount) frames, "
                    + String(format: "%.3f s", info.durationSeconds)
                    + (info.framesPerSecond.map { String(format: ", %.3g fps", $0) } ?? "")
                    + (info.hasAudio ? ", audio" : ""))
                guard file.lowercased().hasSuffix(".mkv"),
                      let meta = try? AssetTrackReader(path: file, track: .metadata),
                      let first = try? meta.nextRecord(timeout: 5), let header = meta.header else { continue }
                var records = 1, detections = first.detections.count, focused = first.focus == nil ? 0 : 1
                while let r = try meta.nextRecord(timeout: 30) {
                    records += 1
                    detections += r.detections.count
                    if r.focus != nil { focused += 1 }
                }
                print("  cinematic asset v\(header.version): reference \(header.referenceWidth)x\(header.referenceHeight) at \(header.fps) fps")
                if let w = header.disparityWidth, let h = header.disparityHeight {
                    let disparity = try AssetTrackReader(path: file, track: .disparity)
                    var n = 0
                    while try disparity.nextImage(timeout: 30) != nil { n += 1 }
                    print("  disparity track: \(w)x\(h), \(n) frames, 1/\(Int(header.disparityScale)) px steps")
                } else {
                    print("  no disparity track")
                }
                print("  metadata: \(records) records, \(detections) detections, focus state in \(focused)")
                if let a = header.audioChannels {
                    let audio = try AudioProbe.inspect(path: file)
                    print("  audio: \(a) channels at \(header.audioSampleRate ?? 0) Hz (FLAC)"
                        + (audio.map { String(format: ", %.3f s", $0.durationSeconds) } ?? ", no samples"))
                }
                if header.calibration != nil { print("  stereo calibration stored") }
                if let plot {
                    try FocusPlot.write(asset: file, changes: changes, to: plot)
                    print("  plot written to \(plot)")
                }
                if let f = header.focalLengthPixels { print("  focal length \(f) px" + (header.baselineMetres.map { ", baseline \($0) m" } ?? "")) }
            } catch {
                failed = true
                printError("\(file): \(error)")
            }
        }
        if failed { throw ExitCode(1) }
    }
}
