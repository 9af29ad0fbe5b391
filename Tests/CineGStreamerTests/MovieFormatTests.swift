// MovieFormat: containers follow extensions; encoders follow preference, installation and container.
import Testing

@testable import CineGStreamer

extension CineGStreamerTests {
    @Suite struct MovieFormatTests {
        @Test func muxerFollowsTheExtension() throws {
            #expect(try MovieFormat.muxer(forPath: "/a/b.mp4") == "mp4mux")
            #expect(try MovieFormat.muxer(forPath: "B.MOV") == "qtmux")
            #expect(try MovieFormat.muxer(forPath: "x.y.mkv") == "matroskamux")
            #expect(try MovieFormat.muxer(forPath: "clip.webm") == "webmmux")
            #expect(throws: GStreamerError.self) { try MovieFormat.muxer(forPath: "/a/noextension") }
            #expect(throws: GStreamerError.self) { try MovieFormat.muxer(forPath: "/a.mp4/file") }
        }

        @Test func autoPicksAnInstalledEncoderTheContainerCanCarry() throws {
            #expect(try MovieFormat.videoEncoder(preference: "auto", container: "mp4") == "x264enc")
            #expect(try MovieFormat.videoEncoder(preference: "auto", container: ".mkv") == "x264enc")
            #expect(try MovieFormat.videoEncoder(preference: "auto", container: "webm") == "vp8enc")
            #expect(try MovieFormat.videoEncoder(preference: "openh264", container: "mov") == "openh264enc")
            #expect(try MovieFormat.videoEncoder(preference: "vp9", container: "/x/y.webm") == "vp9enc")
        }

        @Test func encoderTheContainerCannotCarryIsRefused() {
            #expect {
                _ = try MovieFormat.videoEncoder(preference: "x264", container: "webm")
            } throws: { error in
                String(describing: error).contains("webmmux")
            }
            #expect(throws: GStreamerError.self) {
                try MovieFormat.videoEncoder(preference: "nosuchenc", container: "mkv")
            }
        }

        @Test func mp4AndMovAreFragmentedAndMuxerIsNamedMux() {
            #expect(MovieFormat.muxerDescription(container: "mp4") == "mp4mux name=mux fragment-duration=1000")
            #expect(MovieFormat.muxerDescription(container: "mov") == "qtmux name=mux fragment-duration=1000")
            #expect(MovieFormat.parser(forEncoder: "x264enc") == "h264parse")
            #expect(MovieFormat.parser(forEncoder: "vp8enc") == nil)
            let x264 = MovieFormat.encoderDescription("x264enc", fps: 30, bitrateKbps: 0, speedPreset: "veryfast")
            #expect(x264.contains("tune=zerolatency") && x264.contains("key-int-max=60"))
        }
    }
}
