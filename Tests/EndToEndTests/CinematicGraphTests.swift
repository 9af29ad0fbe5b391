// The whole cinematic graph (graphs/cinematic.conf) end to end: every stage runs, every output
// is written and re-opened, and focus state reaches the asset (through the stabilizer) and the
// metadata stream.
import CineGStreamer
import CineMedia
import Foundation
import Testing

@Suite(.serialized) struct CinematicGraphTests {
    @Test func cinematicGraphRecordsAssetMovieAndMetadata() throws {
        let dir = scratch("cinematic")
        let r = try cinegraph(["run", "graphs/cinematic.conf", "--set", "camera.size=320x180", "--set", "camera.live=false",
                               "--set", "camera.duration=1s", "--set", "asset.path=\(dir)/c.cine.mkv",
                               "--set", "preview.width=160", "--set", "viewfinder.port=0",
                               "--set", "meta.path=\(dir)/c.jsonl", "--quiet"],
                              timeout: 180)
        #expect(r.status == 0, "\(r.stderr)")
        for node in ["camera", "disparity", "faces", "focus", "preview", "bokeh", "viewfinder", "steady", "asset", "meta"] {
            #expect(r.stderr.contains("  \(node) "), "no summary row for \(node)")
        }
        // The stabilizer holds frames for its lookahead and flushes them at the end: the asset has them all.
        #expect(try MediaProbe.inspect(path: "\(dir)/c.cine.mkv").frameCount == 30)
        let metadata = try AssetTrackReader(path: "\(dir)/c.cine.mkv", track: .metadata)
        var focused = 0
        while let record = try metadata.nextRecord() { if record.focus?.fNumber == 2.8 { focused += 1 } }
        #expect(focused == 30)
        let lines = try String(contentsOfFile: "\(dir)/c.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30 && lines.allSatisfy { $0.contains("\"focus\"") })
    }
}
