// A remote stereo camera over SRT, as the shipped graphs run it on two boxes — here two processes
// over loopback: the render box (graphs/srt-receive.conf) listens, the camera box calls it with
// the synthetic camera's views packed side by side. Every frame arrives with its time, the left
// view is the one the camera box saw, and a camera box that goes away mid-take ends the render
// box's run as a lost source with everything received finalised.
import CineGStreamer
import CineMedia
import Foundation
import Testing

@Suite(.serialized) struct SRTTests {
    /// A UDP port for this run (SRT runs over UDP), so a stale process from another run cannot hold it.
    private func freePort(_ offset: Int) -> Int { 20000 + Int(getpid() % 10000) * 2 + offset }

    /// `cinegraph ARGS` started in the repository, its standard error in the pipe returned.
    private func start(_ arguments: [String], executable: String) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.currentDirectoryURL = root
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return (p, err)
    }

    /// The render box: the shipped receive graph on `port`, recording the left view to `movie`.
    private func receiver(port: Int, movie: String, executable: String) throws -> (Process, Pipe) {
        let (p, err) = try start(["run", "graphs/srt-receive.conf",
                                  "--set", #"remote.description=srtsrc uri="srt://:\#(port)?mode=listener" latency=100 ! tsdemux ignore-pcr=true ! h264parse ! avdec_h264"#,
                                  "--set", "movie.path=\(movie)"], executable: executable)
        // Listening once the port is bound (in /proc/net/udp, as hexadecimal).
        let hex = String(format: ":%04X ", port)
        for _ in 0..<100 {
            let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
            if table.contains(hex) { return (p, err) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        p.terminate()
        struct NotListening: Error {}
        Issue.record("the receiver never listened on UDP port \(port)")
        throw NotListening()
    }

    /// The camera box: the shipped send graph at 640×360 a view for `seconds`, calling `port`,
    /// also recording its left view locally (to compare what arrived with what was sent).
    private func senderGraph(_ dir: String, port: Int, seconds: Int) throws -> String {
        let shipped = try String(contentsOfFile: root.path + "/graphs/srt-send.conf", encoding: .utf8)
        let config = shipped
            .replacingOccurrences(of: "size: 1280x720", with: "size: 640x360")
            .replacingOccurrences(of: "duration: 60s", with: "duration: \(seconds)s")
            .replacingOccurrences(of: "srt://127.0.0.1:7001?mode=caller", with: "srt://127.0.0.1:\(port)?mode=caller")
            + "  local:\n    kind: movie\n    video: camera.left\n    path: \(dir)/local.mkv\n"
        #expect(config.contains("size: 640x360") && config.contains("127.0.0.1:\(port)?mode=caller"), "the shipped graph changed: \(shipped)")
        let path = dir + "/send.conf"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Every frame of a movie with its time, decoded to I420.
    private func frames(_ path: String) throws -> [(Image, Timestamp)] {
        let p = try Pipeline("filesrc location=\(path) ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false")
        let reader = try AppSinkReader(pipeline: p, name: "sink")
        try p.play()
        defer { p.stop() }
        var out: [(Image, Timestamp)] = []
        while case .frame(let image, let t) = try reader.next(timeout: 10) { out.append((image.copy(), t)) }
        return out
    }

    private func psnr(_ a: Image, _ b: Image) -> Double {
        let pa = a.plane(0), pb = b.plane(0)
        var sum = 0.0
        for y in 0..<pa.height {
            let ra = pa.row(y, as: UInt8.self), rb = pb.row(y, as: UInt8.self)
            for x in 0..<pa.width { let d = Double(ra[x]) - Double(rb[x]); sum += d * d }
        }
        return 10 * log10(255 * 255 / max(sum / Double(pa.width * pa.height), 1e-9))
    }

    @Test func everyFrameArrivesWithItsTime() throws {
        guard let release = requiredReleaseBinary() else { return }
        let dir = scratch("srt")
        let port = freePort(0)
        let (rx, rxErr) = try receiver(port: port, movie: "\(dir)/remote.mkv", executable: release)
        defer { if rx.isRunning { rx.terminate() } }
        let tx = try cinegraph(["run", try senderGraph(dir, port: port, seconds: 3)], timeout: 60, executable: release)
        #expect(tx.status == 0, "\(tx.stderr)")
        rx.waitUntilExit()
        let log = String(decoding: rxErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rx.terminationStatus == 0, "\(log)")
        #expect(log.contains("the stream ended after 90 frames"), "\(log)")

        let sent = try frames("\(dir)/local.mkv"), received = try frames("\(dir)/remote.mkv")
        #expect(sent.count == 90)
        try #require(received.count == sent.count, "\(received.count) of \(sent.count) frames arrived")
        for (k, (image, t)) in received.enumerated() {
            // The sender's times (k/30 s), as Matroska keeps them: to the millisecond.
            #expect(t == sent[k].1 && abs(t.seconds - Double(k) / 30) <= 0.001, "frame \(k) at \(t.seconds) s, sent at \(sent[k].1.seconds) s")
            #expect(image.width == 640 && image.height == 360)
            // The left view of the same frame: two encodes of one picture.
            let same = psnr(image, sent[k].0)
            #expect(same > 30, "frame \(k): \(same) dB against the frame sent")
        }
    }

    @Test func aSenderThatGoesAwayEndsTheTakeWithEverythingReceived() throws {
        guard let release = requiredReleaseBinary() else { return }
        let dir = scratch("srt-lost")
        let port = freePort(1)
        let (rx, rxErr) = try receiver(port: port, movie: "\(dir)/remote.mp4", executable: release)
        defer { if rx.isRunning { rx.terminate() } }
        let (tx, _) = try start(["run", try senderGraph(dir, port: port, seconds: 30), "--quiet"], executable: release)
        Thread.sleep(forTimeInterval: 3)
        kill(tx.processIdentifier, SIGKILL)  // the camera box loses power
        tx.waitUntilExit()
        let start = Date()
        rx.waitUntilExit()
        let log = String(decoding: rxErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(Date().timeIntervalSince(start) < 15, "the receiver took \(Date().timeIntervalSince(start)) s to notice")
        #expect(rx.terminationStatus != 0, "a lost sender is not a normal end")
        #expect(log.contains("(the sender went away); everything received is kept"), "\(log)")
        let saved = try MediaProbe.inspect(path: "\(dir)/remote.mp4").frameCount
        #expect(saved > 30, "\(saved) frames kept")
    }

    @Test func aSenderWithNobodyListeningIsOneClearError() throws {
        guard let release = requiredReleaseBinary() else { return }
        let dir = scratch("srt-alone")
        let r = try cinegraph(["run", try senderGraph(dir, port: freePort(2), seconds: 10)], timeout: 60, executable: release)
        #expect(r.status != 0)
        #expect(r.stderr.contains("node 'send' (gst-sink) failed") && r.stderr.contains("srtsink"), "\(r.stderr)")
        // The camera box's own recording is finalised all the same.
        #expect(try MediaProbe.inspect(path: "\(dir)/local.mkv").frameCount > 0)
    }
}
