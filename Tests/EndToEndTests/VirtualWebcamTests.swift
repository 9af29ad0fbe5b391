// graphs/virtual-webcam.conf as shipped, with the release binary: focus and bokeh on the
// synthetic stereo camera, out through the virtual-camera node. No v4l2loopback module can be
// loaded here, so the node's `output` replaces v4l2sink with a file (a stand-in): the same
// scaling and YUY2 conversion a call app would receive, every frame accounted for.
import Foundation
import Testing

@Suite(.serialized) struct VirtualWebcamTests {
    @Test func theShippedGraphSendsEveryFrameAsYUY2() throws {
        guard let releaseBinary = requiredReleaseBinary() else { return }
        let dir = scratch("virtual-webcam")
        let file = dir + "/call.yuy2"
        // Offline (the camera waits for the graph): every frame must arrive whatever else the
        // machine runs; live shedding under load is the bench's to measure (virtual-webcam.sh).
        let r = try cinegraph(["run", "graphs/virtual-webcam.conf", "--set", "camera.live=false", "--set", "camera.duration=3s",
                               "--set", "camera.size=640x360",
                               "--set", "call.size=640x360", "--set", "call.output=filesink location=\(file)"],
                              timeout: 120, executable: releaseBinary)
        #expect(r.status == 0, "\(r.stderr)")
        let camera = try #require(r.stderr.split(separator: "\n").first { $0.hasPrefix("  camera ") })
        let cameraFrames = try #require(Int(camera.split(separator: " ", omittingEmptySubsequences: true)[3]))
        let call = try #require(r.stderr.split(separator: "\n").first { $0.hasPrefix("  call ") })
        let sent = try #require(Int(call.split(separator: " ", omittingEmptySubsequences: true)[3]))
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        #expect(size == sent * 640 * 360 * 2, "\(size) bytes for \(sent) frames")
        #expect(cameraFrames == 90 && sent == cameraFrames, "\(sent) of \(cameraFrames) camera frames sent")
    }

    @Test func withoutTheModuleTheRunSaysHowToLoadIt() throws {
        let r = try cinegraph(["run", "graphs/virtual-webcam.conf", "--duration", "1s", "--set", "call.device=/dev/video-none"])
        #expect(r.status != 0)
        // The error names where the value came from (here the --set) and the device.
        #expect(r.stderr.contains("--set call.device") && r.stderr.contains("no such device: /dev/video-none")
            && r.stderr.contains("modprobe v4l2loopback"), "\(r.stderr)")
    }
}
