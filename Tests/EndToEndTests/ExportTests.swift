// `cinegraph export --depth`: a recorded take's disparity as 16-bit PNG and PFM sequences and depth
// in metres, re-read and compared with the asset's own track; bad input is one clear error.
import CineGStreamer
import CineMedia
import Foundation
import Testing

@Suite(.serialized) struct ExportTests {
    @Test func exportedDisparityEqualsTheAssetsTrack() throws {
        let dir = scratch("export")
        let asset = dir + "/take.cine.mkv", out = dir + "/depth"
        let recorded = try cinegraph(["run", "graphs/asset.conf", "--set", "camera.size=320x240", "--set", "camera.live=false",
                                      "--set", "camera.duration=1s", "--set", "asset.path=\(asset)",
                                      "--set", "asset.focal-length=300", "--set", "asset.baseline=0.06", "--quiet"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let r = try cinegraph(["export", asset, "--depth", out, "--metadata"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("exported 30 frames"))

        let sidecar = try JSONDecoder().decode(
            DepthExportSidecar.self, from: try Data(contentsOf: URL(fileURLWithPath: out + "/camera.json")))
        #expect(sidecar.frames == 30 && sidecar.width == 320 && sidecar.height == 240 && sidecar.pngScale == 64)
        #expect(sidecar.focalLengthPixels == 300 && sidecar.baselineMetres == 0.06)
        #expect(sidecar.files.keys.contains("depth-%06d.pfm"))

        let track = try AssetTrackReader(path: asset, track: .disparity)
        var index = 0, valid = 0
        while let (samples, t) = try track.nextImage() {
            let name = String(format: "%06d", index)
            #expect(abs(sidecar.timestamps[index] - t.seconds) < 1e-9)
            let png = try ImageFile.read(out + "/disparity-\(name).png", as: .gray16)
            let pfm = try PortableFloatMap(contentsOf: out + "/disparity-\(name).pfm").values
            let depth = try PortableFloatMap(contentsOf: out + "/depth-\(name).pfm").values
            #expect(png.width == 320 && pfm.width == 320 && depth.height == 240)
            var pngDiffers = 0, pfmWorst: Float = 0, depthWorst: Float = 0
            for y in 0..<240 {
                let s = samples.plane(0).row(y, as: UInt16.self), p = png.plane(0).row(y, as: UInt16.self)
                let f = pfm.plane(0).row(y, as: Float.self), z = depth.plane(0).row(y, as: Float.self)
                for x in 0..<320 {
                    if s[x] != p[x] { pngDiffers += 1 }
                    if s[x] == 0 {
                        if f[x] != .infinity || z[x] != .infinity { pfmWorst = .infinity }
                        continue
                    }
                    valid += 1
                    let d = Float(s[x]) / 64
                    pfmWorst = max(pfmWorst, abs(f[x] - d))
                    depthWorst = max(depthWorst, abs(z[x] - 300 * 0.06 / d) / (300 * 0.06 / d))
                }
            }
            #expect(pngDiffers == 0, "frame \(index): \(pngDiffers) PNG samples differ from the asset's")
            #expect(pfmWorst <= 1.0 / 64, "frame \(index): PFM off by \(pfmWorst) px")
            #expect(depthWorst < 1e-5, "frame \(index): depth off by \(depthWorst) (relative)")
            index += 1
        }
        #expect(index == 30 && valid > 30 * 320 * 200)
        let lines = try String(contentsOfFile: out + "/metadata.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 30 && lines[0].contains("\"time\":0"))
    }

    @Test func aFileThatIsNotAnAssetIsOneClearError() throws {
        let dir = scratch("export-bad")
        let movie = dir + "/plain.mp4"
        let recorded = try cinegraph(["run", "graphs/record.conf", "--duration", "1s", "--set", "camera.size=320x240", "--set", "camera.live=false", "--set", "movie.path=\(movie)", "--quiet"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        for file in [movie, dir + "/missing.cine.mkv"] {
            let r = try cinegraph(["export", file, "--depth", dir + "/out"])
            #expect(r.status != 0 && r.stderr.contains(file), "\(r.stderr)")
            #expect(!r.stderr.contains("Fatal error"))
        }
        let r = try cinegraph(["export", movie, "--depth", dir + "/out", "--formats", "exr"])
        #expect(r.status != 0 && r.stderr.contains("--formats"))
    }
}
