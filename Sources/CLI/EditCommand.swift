// `cinegraph edit`: the cinematic editor — change focus after the take in the browser. Starts a
// local web server on the take and prints its address; Ctrl-C stops it (unsaved edits are
// reported, the asset is never written).
import ArgumentParser
import CineEditor
import CineGStreamer
import CineNodes
import CineVision
import CineMedia
import Dispatch
import Foundation

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a take's focus and aperture in the browser (the asset is never modified).",
        discussion: """
            Serves a page at the printed address: the frame at the playhead with the bokeh of your \
            decisions, every subject's rectangle, a timeline of the focus and the subjects. Tap a \
            subject to focus on it (tap again to hold it), tap an object to follow it through the take and focus on it, tap elsewhere for that depth, drag or \
            delete your decisions, set the aperture, Save (the changes file, as `cinegraph script` \
            writes it) and Render (a movie with the audio kept). See docs/edit.md.
            """)

    @Argument(help: "The cinematic asset (.mkv).") var asset: String
    @Option(help: "The changes file to open and save (default: ASSET with .changes.json in place of .mkv).") var changes: String?
    @Option(name: .shortAndLong, help: "The movie the Render button writes (default: ASSET with .edit.mp4 in place of .mkv).")
    var output: String?
    @Option(help: "Address to listen on (another than loopback needs --token).") var address = "127.0.0.1"
    @Option(help: "Port (0 = any free one).") var port = 8091
    @Option(help: "Shared secret every request must present (Bearer or ?token=).") var token = ""
    @Option(help: "Bokeh quality of the render.") var quality: BokehNode.Quality = .standard

    private var base: String { asset.lowercased().hasSuffix(".mkv") ? String(asset.dropLast(4)) : asset }

    func run() throws {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(address)
        guard loopback || !token.isEmpty else {
            throw ValidationError("--address \(address) is reachable from other machines: give --token SECRET too")
        }
        let header: AssetHeader, records: [AssetFrameRecord]
        do { (header, records) = try AssetTrackReader.readMetadata(path: asset) } catch { throw ToolError("\(error)") }
        let server: EditorServer
        do {
            var session = try EditSession(assetPath: asset, header: header, records: records,
                                          changesPath: changes ?? base + ".changes.json")
            if header.audioChannels != nil {
                do { session.voice = SpeakerDecisions.voice(of: try AudioTrackReader.readMono(path: asset)) } catch {
                    throw ToolError("\(asset): its sound: \(error)")
                }
            }
            let preview = try TakePreview(path: asset, header: header, times: records.map(\.time))
            var settings = EditorServer.Settings(renderOutput: output ?? base + ".edit.mp4", exportFolder: base + ".depth")
            settings.address = address
            settings.port = port
            settings.token = token
            settings.renderQuality = quality
            server = try EditorServer(session: session, preview: preview, settings: settings)
        } catch let error as EditError {
            throw ToolError(error.message)
        }
        let open = token.isEmpty ? server.url : server.url + "?token=\(token)"
        // Written unbuffered: whoever started the editor reads the address at once.
        FileHandle.standardOutput.write(Data("""
            editing \(asset): open \(open)
            Ctrl-C stops the editor; Save writes \(changes ?? base + ".changes.json")

            """.utf8))
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        stop.wait()
        if server.isDirty { printError("cinegraph edit: stopped with unsaved changes (not written)") }
        server.stop()
        _ = sources
    }
}
