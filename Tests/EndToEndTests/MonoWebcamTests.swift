// graphs/mono-webcam.conf as shipped, with the release binary, on the synthetic camera's left view
// alone (one lens): the asset is recorded with a disparity track made by mono-depth, and the
// exported files show focus on a person at the disparity the map gives that person's face.
import CineGStreamer
import CineMedia
import Foundation
import Testing

@Suite(.serialized) struct MonoWebcamTests {
    @Test func oneLensGivesFocusOnAPersonAndAnAssetToRenderLater() throws {
        guard let releaseBinary = requiredReleaseBinary() else { return }
        let dir = scratch("mono")
        let asset = dir + "/take.cine.mkv"
        let r = try cinegraph(["run", "graphs/mono-webcam.conf", "--duration", "5s", "--set", "camera.size=640x360",
                               "--set", "viewfinder.port=0", "--set", "asset.path=\(asset)", "--quiet"],
                              timeout: 120, executable: releaseBinary)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("lost from the take 0"), "\(r.stderr)")
        let e = try cinegraph(["export", asset, "--depth", dir + "/depth", "--metadata"], executable: releaseBinary)
        #expect(e.status == 0, "\(e.stderr)")
        struct Line: Decodable {
            var focus: FocusState?
            var detections: [Detection]
        }
        let lines = try String(contentsOfFile: dir + "/depth/metadata.jsonl", encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count >= 140)
        // Frames focused on a face: the focus sits at that face's disparity, and the map there agrees.
        var checked = 0
        for (index, line) in lines.enumerated() {
            guard let f = line.focus, let id = f.targetDetectionID, f.transitionProgress >= 1,
                  let face = line.detections.first(where: { $0.id == id && $0.type == .humanFace }),
                  let d = face.disparity else { continue }
            #expect(abs(f.focusDisparity - d) < 0.05 * d + 0.5, "frame \(index): focus \(f.focusDisparity), face \(d)")
            let samples = try ImageFile.read(dir + "/depth/disparity-\(String(format: "%06d", index)).png", as: .gray16)
            let map = DisparityMap(quantized: samples, referenceWidth: 640, referenceHeight: 360)
            let b = face.bounds
            let atFace = map.values.plane(0).row(Int((b.y + b.height / 2) * Double(map.values.height)), as: Float.self)[
                Int((b.x + b.width / 2) * Double(map.values.width))]
            #expect(abs(Double(atFace) - d) < 0.1 * d + 0.5, "frame \(index): map \(atFace) at the face, face \(d)")
            checked += 1
        }
        #expect(checked >= 30, "only \(checked) frames focused on a face")
    }
}
