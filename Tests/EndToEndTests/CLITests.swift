// End to end: the `cinegraph` binary on real configs, real GStreamer, real files re-opened.
import CineGStreamer
import CineMedia
import Foundation
import Testing

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The `cinegraph` binary built beside this test bundle.
let binary: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("cinegraph").path
}()

struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs cinegraph; `signals` are (seconds, signal) pairs, counted from the moment `trigger` appears
/// on stderr (or from the start); the process is killed after `timeout`. `executable` is the
/// debug build beside the tests unless given; it runs in `directory` (the repository).
func cinegraph(_ args: [String], stdin: String? = nil, signals: [(Double, Int32)] = [],
               after trigger: String? = nil, timeout: Double = 60, executable: String = binary,
               directory: URL = root) throws -> Result {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    p.currentDirectoryURL = directory
    let out = Pipe(), err = Pipe(), input = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = input
    try p.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    let start = Date()
    var pending = signals
    final class Box: @unchecked Sendable {
        let lock = NSLock()
        var out = Data(), err = Data()
        var errText: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
    }
    let box = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { box.out = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async {
        while true {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            box.lock.withLock { box.err.append(chunk) }
        }
        group.leave()
    }
    var clockStart: Date? = trigger == nil ? start : nil
    while p.isRunning {
        let elapsed = Date().timeIntervalSince(start)
        if clockStart == nil, let trigger, box.errText.contains(trigger) { clockStart = Date() }
        if let (at, sig) = pending.first, let c = clockStart, Date().timeIntervalSince(c) >= at {
            kill(p.processIdentifier, sig)
            pending.removeFirst()
        }
        if elapsed > timeout {
            p.terminate()
            Issue.record("cinegraph \(args) did not finish within \(timeout) s")
            break
        }
        Thread.sleep(forTimeInterval: 0.02)
    }
    try? input.fileHandleForWriting.close()
    p.waitUntilExit()
    group.wait()
    return Result(status: p.terminationStatus, stdout: String(decoding: box.out, as: UTF8.self),
                  stderr: String(decoding: box.err, as: UTF8.self))
}

func scratch(_ name: String) -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cinegraph-e2e-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}

@Suite(.serialized) struct CLITests {
    @Test func recordGraphRecordsAPlayableMovieOfTheRightLength() throws {
        let movie = scratch("record") + "/record.mp4"
        let r = try cinegraph(["run", "graphs/record.conf", "--set", "camera.duration=3s", "--set", "camera.size=320x240",
                               "--set", "movie.path=\(movie)", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Summary of 'record'"))
        let info = try MediaProbe.inspect(path: movie)
        #expect(info.width == 320 && info.height == 240)
        // Live: on a loaded machine the camera's edge may drop frames — every one is counted.
        let drops = r.stderr.split(separator: "\n").first { $0.contains("packets dropped on live edges") }
            .flatMap { line in line.split(separator: ",").last?.split(separator: " ").first.flatMap { Int($0) } }
        #expect(drops != nil, "\(r.stderr)")
        #expect(info.frameCount + (drops ?? 0) == 90, "\(r.stderr)")
        #expect(abs(info.durationSeconds - 3.0) < 0.1)
    }

    @Test func interruptFinalisesTheMovieWithWhatWasCaptured() throws {
        let movie = scratch("sigint") + "/take.mp4"
        let r = try cinegraph(["run", "graphs/record.conf", "--set", "camera.duration=0s", "--set", "camera.size=320x240",
                               "--set", "movie.path=\(movie)", "--quiet"], signals: [(2.0, SIGINT)], after: "recording-started")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("stopping"))
        #expect(r.stderr.contains("movie-saved"))
        let info = try MediaProbe.inspect(path: movie)
        // The 2 s between the first recorded frame and the signal are all in the file.
        #expect(info.frameCount >= 57 && info.frameCount <= 66, "frames: \(info.frameCount)")
        #expect(abs(info.durationSeconds - Double(info.frameCount) / 30) < 0.1)
    }

    @Test func secondInterruptAbortsAndTheMovieStillPlays() throws {
        let movie = scratch("abort") + "/take.mp4"
        let r = try cinegraph(["run", "graphs/record.conf", "--set", "camera.duration=0s", "--set", "camera.size=320x240",
                               "--set", "movie.path=\(movie)", "--quiet"], signals: [(2.0, SIGTERM), (2.0, SIGINT)], after: "recording-started")
        #expect(r.status == 130 || r.status == 0, "\(r.stderr)")
        let info = try MediaProbe.inspect(path: movie)
        #expect(info.frameCount >= 30, "frames: \(info.frameCount)")
    }

    @Test func killedAssetRecordingStillOpensWithItsFrames() throws {
        let asset = scratch("kill") + "/take.cine.mkv"
        let r = try cinegraph(["run", "graphs/asset.conf", "--set", "camera.size=320x240", "--set", "asset.path=\(asset)", "--quiet"],
                              signals: [(3.0, SIGKILL)], after: "recording-started")
        #expect(r.status != 0)
        let info = try MediaProbe.inspect(path: asset)
        // Matroska clusters are written as they fill: most of the 3 s survive the kill.
        #expect(info.frameCount >= 30, "frames after SIGKILL: \(info.frameCount)")
        #expect(info.width == 320 && info.height == 240)
    }

    @Test(arguments: ["movie", "asset"])
    func fullDiskStopsTheRunClearlyAndKeepsWhatWasWritten(_ sink: String) throws {
        // A real full disk: a small tmpfs (the tests run as root, as CI does).
        let mountPoint = scratch("fulldisk-\(sink)")
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", sink == "movie" ? "size=300k" : "size=400k", "tmpfs", mountPoint]
        try mount.run()
        mount.waitUntilExit()
        #expect(mount.terminationStatus == 0, "mounting a tmpfs failed")
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [mountPoint]
            try? umount.run()
            umount.waitUntilExit()
        }
        let file = mountPoint + (sink == "movie" ? "/full.mp4" : "/full.cine.mkv")
        let args = sink == "movie"
            ? ["run", "graphs/record.conf", "--set", "camera.size=640x360", "--set", "camera.duration=6s", "--set", "movie.path=\(file)"]
            : ["run", "graphs/asset.conf", "--set", "camera.size=320x240", "--set", "camera.live=false",
               "--set", "camera.duration=20s", "--set", "asset.path=\(file)"]
        let r = try cinegraph(args + ["--quiet"], timeout: 60)
        #expect(r.status == 1)
        #expect(r.stderr.contains("node '\(sink)' (\(sink)) failed at frame"))
        #expect(r.stderr.contains("filesink") && r.stderr.contains("No space left"))
        #expect(r.stderr.components(separatedBy: "No space left").count == 2, "reported once: \(r.stderr)")
        // Everything written before the disk filled plays (MP4: every complete fragment; asset: every cluster).
        let info = try MediaProbe.inspect(path: file)
        #expect(info.frameCount >= 30, "frames kept: \(info.frameCount)")
        if sink == "asset" {
            let (_, records) = try AssetTrackReader.readMetadata(path: file)
            #expect(records.count >= 30, "metadata records kept: \(records.count)")
        }
    }

    @Test func bareRunIsTheCinematicDemo() throws {
        guard let releaseBinary else {
            Issue.record("CINEGRAPH_RELEASE_BIN must name the release cinegraph: run the tests with `make test`")
            return
        }
        // In a folder of its own: the demo writes to out/ where it runs.
        let dir = URL(fileURLWithPath: scratch("bare-run"))
        let r = try cinegraph(["run", "--duration", "2s", "--set", "camera.size=320x180", "--quiet"], timeout: 120,
                              executable: releaseBinary, directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("60 of 60 camera frames recorded"), "\(r.stdout)")
        let made = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out")
        for suffix in [".cine.mkv", ".mp4", ".focus.svg", ".sheet.png"] {
            #expect(made.contains { $0.hasSuffix(suffix) }, "no \(suffix) in \(made)")
        }
    }

    @Test func validateReportsEveryErrorWithItsPosition() throws {
        let dir = scratch("validate")
        let conf = dir + "/bad.conf"
        try """
            graph: bad
            nodes:
              camera:
                kind: synthetc
                fps: 30
              movie: { kind: movie, video: camera.left, preset: quick }
            """.write(toFile: conf, atomically: true, encoding: .utf8)
        let r = try cinegraph(["validate", conf])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(conf):4:11: error: nodes.camera.kind: unknown node kind 'synthetc' (did you mean 'synthetic'?)"))
        let line6 = "  movie: { kind: movie, video: camera.left, preset: quick }"
        let col = line6.distance(from: line6.startIndex, to: line6.range(of: "quick")!.lowerBound) + 1
        #expect(r.stderr.contains("\(conf):6:\(col): error: nodes.movie.preset: 'quick' is not one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow"))
        let ok = try cinegraph(["validate"] + ["record.conf", "webcam.conf", "side-by-side-file.conf"].map { "graphs/" + $0 })
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("ok: graphs/record.conf (2 nodes: camera, movie)"))
    }

    @Test func missingCameraNamesTheDeviceAndWhereItIsConfigured() throws {
        let r = try cinegraph(["run", "graphs/webcam.conf", "--set", "camera.device=/dev/video9"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no camera at /dev/video9"))
        #expect(r.stderr.contains("nodes.camera.device"))
    }

    @Test func gstreamerFailureNamesTheElement() throws {
        let dir = scratch("gst")
        let conf = dir + "/g.conf"
        try """
            nodes:
              src: { kind: gst-source, description: "videotestsrc num-buffers=10 ! videoflip method=bogus" }
              out: { kind: gst-sink, video: src, description: fakesink }
            """.write(toFile: conf, atomically: true, encoding: .utf8)
        let r = try cinegraph(["run", conf, "--quiet"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("node 'src' (gst-source) failed"))
        #expect(r.stderr.contains("videoflip") || r.stderr.contains("bogus"))
    }

    @Test func unwritableMoviePathFailsClearlyWithoutHanging() throws {
        let r = try cinegraph(["run", "graphs/record.conf", "--set", "camera.size=160x120", "--set", "camera.duration=1s",
                               "--set", "movie.path=/proc/cinegraph-nope/x.mp4", "--quiet"], timeout: 30)
        #expect(r.status == 1)
        #expect(r.stderr.contains("node 'movie' (movie) failed"))
    }

    @Test func controlLinesOnStdinReachTheNodes() throws {
        let movie = scratch("control") + "/c.mp4"
        let r = try cinegraph(["run", "graphs/record.conf", "--set", "camera.size=160x120", "--set", "camera.duration=2s",
                               "--set", "movie.path=\(movie)", "--control", "--quiet"],
                              stdin: "movie.bitrate=900\nmovie.bitrate?\ncamera.fps=1000\nmovie status\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("control: movie.bitrate = 900"))
        #expect(r.stderr.contains("control: 900"))
        #expect(r.stderr.contains("control: error: camera.fps: 1000 is out of range 1...240"))
        #expect(r.stderr.contains("control: \(movie):") || r.stderr.contains("not recording yet"))
    }

    @Test func nodesCommandDescribesAKind() throws {
        let r = try cinegraph(["nodes", "movie"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("movie — Records a movie file"))
        #expect(r.stdout.contains("preset"))
        let bad = try cinegraph(["nodes", "moive"])
        #expect(bad.status == 1 && bad.stderr.contains("did you mean 'movie'?"))
    }
}

/// `cinegraph detect` on a real photo: the learned model by default, the cascades on request.
@Suite struct DetectCommandTests {
    struct Found: Decodable { var type: String; var x, y, width, height: Int; var confidence: Double?; var presence: Double?; var yaw: Double?; var facing: String; var model: String?; var cascade: String? }
    struct Photo: Decodable { var objects: [Found]; var width: Int; var height: Int }

    func detect(_ extra: [String]) throws -> [Found] {
        let r = try cinegraph(["detect", "Tests/PhotoFixtures/astronaut.jpg", "--json"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let photos = try JSONDecoder().decode([Photo].self, from: Data(r.stdout.utf8))
        try #require(photos.count == 1 && photos[0].width == 512 && photos[0].height == 512)
        return photos[0].objects
    }

    @Test func thePortraitHasOneFaceFoundByTheModelWhereTheCascadeAlsoPutsIt() throws {
        let learned = try detect([])
        try #require(learned.count == 1, "\(learned)")
        let face = learned[0]
        #expect(face.type == "humanFace" && face.facing == "towards")
        #expect((face.confidence ?? 0) > 0.8 && face.model?.hasSuffix("face_detection_short_range.tflite") == true)
        // The landmark model saw a face, turned little.
        #expect((face.presence ?? 0) > 0.9 && abs(face.yaw ?? 99) < 20, "\(face)")
        let cascades = try detect(["--model", "haar"])
        let frontal = try #require(cascades.first { $0.facing == "towards" }, "\(cascades)")
        #expect(frontal.cascade?.contains("haarcascade_frontalface") == true)
        func overlap(_ a: Found, _ b: Found) -> Double {
            let ix = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
            let iy = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
            let inter = Double(ix * iy)
            return inter / Double(a.width * a.height + b.width * b.height - Int(inter))
        }
        #expect(overlap(face, frontal) > 0.5, "\(face) vs \(frontal)")
    }

    @Test func herBodyComesFromThePoseDetectorAroundHerFace() throws {
        let face = try #require(try detect([]).first)
        let bodies = try detect(["--types", "humanBody"])
        try #require(bodies.count == 1, "\(bodies)")
        let b = bodies[0]
        #expect(b.type == "humanBody" && b.model?.hasSuffix("pose_detection.tflite") == true)
        #expect(b.x <= face.x && b.x + b.width >= face.x + face.width && b.y <= face.y + 5 && b.y + b.height > face.y + 2 * face.height,
                "\(b) vs \(face)")
    }

    @Test func aMissingModelFileIsOneClearError() throws {
        let r = try cinegraph(["detect", "Tests/PhotoFixtures/astronaut.jpg", "--face-model", "no-such-model.tflite"])
        #expect(r.status == 1)  // a failed run, not a usage error (64)
        #expect(r.stderr.contains("no-such-model.tflite") && r.stderr.contains("fetch-models"), "\(r.stderr)")
    }
}

/// A movie of the real portrait standing still, `frames` frames at 10 fps (H.264 in Matroska).
func portraitMovie(frames: Int) throws -> String {
    let path = scratch("portrait-movie-\(frames)") + "/portrait.mkv"
    let p = try Pipeline(
        "filesrc location=\(Pipeline.quoted(FileManager.default.currentDirectoryPath + "/Tests/PhotoFixtures/astronaut.jpg")) ! jpegdec "
            + "! imagefreeze num-buffers=\(frames) ! video/x-raw,framerate=10/1 ! videoconvert ! video/x-raw,format=I420 "
            + "! x264enc speed-preset=ultrafast ! matroskamux ! filesink location=\(Pipeline.quoted(path))")
    try p.play()
    #expect(try p.waitForEndOfStream(timeout: 60))
    p.stop()
    return path
}

@Suite struct DetectMovieTests {
    @Test func aMoviesFacesComeOneLinePerFrameWithOneID() throws {
        let movie = try portraitMovie(frames: 8)
        let r = try cinegraph(["detect", movie, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 8, "\(r.stdout)")
        var ids = Set<Int>()
        for line in lines {
            let frame = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let detections = try #require(frame["detections"] as? [[String: Any]], "\(line)")
            let faces = detections.filter { $0["type"] as? String == "humanFace" }
            #expect(faces.count == 1, "\(line)")
            if let id = faces.first?["id"] as? Int { ids.insert(id) }
        }
        #expect(ids.count == 1, "\(ids)")
        // A file that is not a movie: one error naming it, status 1.
        let bad = scratch("detect-bad") + "/notes.txt"
        try "not a movie".write(toFile: bad, atomically: true, encoding: .utf8)
        let e = try cinegraph(["detect", bad])
        #expect(e.status == 1 && e.stderr.contains("notes.txt") && e.stderr.contains("cannot read"), "\(e.stderr)")
    }

    @Test func aMoviesMattesAreOnePNGAFrameAtTheFramesSize() throws {
        let movie = try portraitMovie(frames: 6)
        let dir = scratch("matte-movie")
        let r = try cinegraph(["matte", movie, "-o", dir, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("portrait.matte/: 6 mattes"), "\(r.stdout)")
        for k in [0, 5] {
            let matte = try ImageFile.read(String(format: "%@/portrait.matte/%05d.png", dir, k), as: .gray8)
            try #require(matte.width == 512 && matte.height == 512)
            func at(_ x: Int, _ y: Int) -> UInt8 { matte.plane(0).row(y, as: UInt8.self)[x] }
            #expect(at(240, 130) > 200 && at(100, 480) > 200 && at(500, 10) < 30, "frame \(k)")
        }
    }
}

/// `cinegraph matte` on the real portrait: the file written, re-read, person where she is.
@Suite struct MatteCommandTests {
    @Test func thePortraitsMatteIsWrittenAtItsSizeWithThePersonInIt() throws {
        let dir = scratch("matte")
        let r = try cinegraph(["matte", "Tests/PhotoFixtures/astronaut.jpg", "-o", dir])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("astronaut.matte.png: 512x512 matte"), "\(r.stdout)")
        let matte = try ImageFile.read("\(dir)/astronaut.matte.png", as: .gray8)
        try #require(matte.width == 512 && matte.height == 512)
        func at(_ x: Int, _ y: Int) -> UInt8 { matte.plane(0).row(y, as: UInt8.self)[x] }
        #expect(at(240, 130) > 200 && at(100, 480) > 200)  // her face, her suit
        #expect(at(500, 10) < 30 && at(10, 10) < 30)  // the wall, the flag
        // --model-size keeps the model's own size.
        let coarse = try cinegraph(["matte", "Tests/PhotoFixtures/astronaut.jpg", "-o", "\(dir)/model", "--model-size"])
        #expect(coarse.status == 0 && coarse.stdout.contains("256x144"), "\(coarse.stdout)")
    }

    @Test func aMissingModelIsOneClearError() throws {
        let r = try cinegraph(["matte", "Tests/PhotoFixtures/astronaut.jpg", "--model", "no-such-matte.tflite"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no-such-matte.tflite") && r.stderr.contains("fetch-models"), "\(r.stderr)")
    }
}
