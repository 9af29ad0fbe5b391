// EditorTests: the editor on a real recorded take — the model's rules (tap weak then strong,
// decisions checked against the take, undo / redo, save), seeking that gives exactly the frame a
// straight read gives, the HTTP API's refusals, and the page in a real headless Chromium: seek,
// tap a subject twice, save, render, and the rendered movie is sharp on that subject.
// Screenshots go to .build/test-artifacts/viewfinder/edit-*.png.
import CineEditor
import CineGStreamer
import CineGraph
import CineMedia
import CineNodes
import CineTestSupport
import CineVision
import Foundation
import Testing
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.serialized, .timeLimit(.minutes(6))) struct EditorTests {
    /// An 8 s 640×360 take of the synthetic scene, focus decided live on the true detections.
    static func recordTake(_ name: String) throws -> (folder: String, asset: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-edit-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let asset = folder + "/take.cine.mkv"
        let yaml = """
            nodes:
              camera: { kind: synthetic, size: 640x360, live: false, duration: 8s, fps: 15, seed: 3 }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, detections: focus.detections,
                       focus: focus.focus, path: "\(asset)", fps: 15 }
            """
        let summary = try GraphRunner(graph: try Graph.parse(yaml, registry: NodeRegistry.standard().withViewfinder())).run()
        guard summary.failures.isEmpty else { throw TestFailure("recording failed: \(summary.failures)") }
        return (folder, asset)
    }

    static func open(_ asset: String, changes: String) throws -> (EditSession, TakePreview) {
        let (header, records) = try AssetTrackReader.readMetadata(path: asset)
        let session = try EditSession(assetPath: asset, header: header, records: records, changesPath: changes)
        return (session, try TakePreview(path: asset, header: header, times: records.map(\.time)))
    }

    /// A frame in the middle of the take with a subject not in focus, wide enough to tap, whose
    /// tap point no other rectangle covers, and another subject at a clearly different depth.
    static func target(_ s: EditSession) -> (index: Int, subject: Detection, other: Detection)? {
        for i in (s.frameCount / 3)..<(s.frameCount * 5 / 6) {
            let dets = s.records[i].detections
            for d in dets where d.id != s.focus[i].detectionID && d.bounds.width > 0.06 && d.bounds.height > 0.15 {
                let p = tapPoint(d)
                let covered = dets.contains { o in
                    o.id != d.id && p.x >= o.bounds.x && p.x <= o.bounds.x + o.bounds.width && p.y >= o.bounds.y
                        && p.y <= o.bounds.y + o.bounds.height
                }
                guard !covered, let dd = d.disparity else { continue }
                if let o = dets.first(where: { o in
                    o.groupID != d.groupID && o.bounds.width > 0.05 && abs((o.disparity ?? dd) - dd) > 0.3 * dd
                }) {
                    return (i, d, o)
                }
            }
        }
        return nil
    }

    static func tapPoint(_ d: Detection) -> (x: Double, y: Double) {
        (d.bounds.x + d.bounds.width / 2, d.bounds.y + d.bounds.height * 0.75)
    }

    @Test func decisionsFollowTheTapsAndAreCheckedAgainstTheTake() throws {
        let (folder, asset) = try Self.recordTake("session")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let changes = folder + "/take.cine.changes.json"
        var (s, preview) = try Self.open(asset, changes: changes)
        let (i, d, _) = try #require(Self.target(s), "no frame with a tappable subject")
        let p = Self.tapPoint(d)
        let depth = try preview.disparity(index: i, x: p.x, y: p.y)

        // First tap: weak focus on the subject; second tap: strong.
        _ = try s.tap(at: i, x: p.x, y: p.y, disparity: depth)
        #expect(s.focus[i].detectionID == d.id && s.focus[i].kind == .weakUser)
        _ = try s.tap(at: i, x: p.x, y: p.y, disparity: depth)
        #expect(s.focus[i].detectionID == d.id && s.focus[i].kind == .strongUser)
        #expect(s.changes.decisions.count == 1 && s.changes.decisions[0].time == s.time(of: i))
        #expect(abs(s.focus[i].disparity - d.disparity!) < 1e-6, "focus \(s.focus[i].disparity) vs subject \(d.disparity!)")
        // Undo and redo step through the edits.
        try s.undo()
        #expect(s.focus[i].kind == .weakUser)
        try s.redo()
        #expect(s.focus[i].kind == .strongUser)
        #expect(throws: EditError.self) { try s.redo() }

        // Refusals, each leaving the changes as they were.
        let before = s.changes
        #expect { try s.focus(on: .detection(9999), at: i, strong: false) } throws: {
            ($0 as? EditError)?.kind == .notFound && "\($0)".contains("9999")
        }
        #expect { try s.frame(at: 1000) } throws: { ($0 as? EditError)?.kind == .invalid && "\($0)".contains("outside the take") }
        #expect { try s.setAperture(0.5) } throws: { ($0 as? EditError)?.kind == .invalid }
        #expect { try s.removeDecision(at: 0) } throws: { ($0 as? EditError)?.kind == .notFound }
        var foreign = ScriptChanges()
        try foreign.add(FocusDecision(time: s.time(of: i), target: .group(999), kind: .weakUser))
        #expect { try s.replace(with: foreign, source: "other.json") } throws: { "\($0)".contains("other.json") }
        #expect(s.changes == before)

        // Moving the decision keeps its kind; it must land where its subject is.
        let later = (i + 1..<s.frameCount).first { j in s.records[j].detections.contains { $0.id == d.id } }
        if let later {
            try s.moveDecision(from: i, to: later)
            #expect(s.decision(at: later)?.kind == .strongUser && s.decision(at: i) == nil)
            try s.undo()
        }
        // Save writes the changes file; the asset is never written.
        let stamp = try FileManager.default.attributesOfItem(atPath: asset)[.modificationDate] as? Date
        #expect(s.isDirty)
        try s.save()
        #expect(!s.isDirty)
        #expect(try ScriptChanges.load(contentsOf: changes) == s.changes)
        #expect(try FileManager.default.attributesOfItem(atPath: asset)[.modificationDate] as? Date == stamp)
        // Reopened, the session starts from the saved changes.
        let (again, _) = try Self.open(asset, changes: changes)
        #expect(again.changes == s.changes && !again.isDirty)
    }

    /// What the editor draws and what it renders agree at every frame, before and after a tap:
    /// where a frame's rectangle is the focused one and focus is not racking, the preview's focus
    /// disparity is that subject's; after a weak tap on a subject, every later frame that holds it
    /// (until the take's next decision of its own) draws it as the one in focus.
    @Test func theRectanglesFollowTheEditedFocusAtEveryFrame() throws {
        let (folder, asset) = try Self.recordTake("rectangles")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var (s, preview) = try Self.open(asset, changes: folder + "/take.cine.changes.json")
        let (i, d, _) = try #require(Self.target(s), "no frame with a tappable subject")
        func agree(_ label: String) {
            for j in 0..<s.frameCount where !s.focus[j].racking {
                guard let id = s.focus[j].detectionID, let det = s.records[j].detections.first(where: { $0.id == id }),
                      let dd = det.disparity else { continue }
                #expect(abs(s.focus[j].disparity - dd) < 0.05 * dd + 0.5,
                        "\(label) frame \(j): the rectangle is on #\(id) (\(dd) px) but the picture focuses at \(s.focus[j].disparity) px")
            }
        }
        agree("recorded")
        let p = Self.tapPoint(d)
        _ = try s.tap(at: i, x: p.x, y: p.y, disparity: try preview.disparity(index: i, x: p.x, y: p.y))
        agree("after the tap")
        var held = 0
        for j in i..<s.frameCount where s.records[j].detections.contains(where: { $0.id == d.id }) {
            if s.focus[j].kind != .weakUser { break }
            #expect(s.focus[j].detectionID == d.id, "frame \(j): the rectangle is on #\(s.focus[j].detectionID ?? -1), the tap was on #\(d.id)")
            held += 1
        }
        #expect(held >= 1)
    }

    @Test func aTapOnAnObjectFollowsItThroughTheTakeAndFocusFollowsIt() throws {
        // The synthetic camera's ball, tapped after the take: followed by its look, added to the
        // changes as a track of its own, focused, saved, and applied the way a render applies it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cg-edit-track-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let asset = folder + "/take.cine.mkv"
        let yaml = """
            nodes:
              camera: { kind: synthetic, size: 640x360, live: false, duration: 8s, fps: 15, seed: 1, props: true }
              focus: { kind: focus, detections: camera.detections, disparity: camera.disparity }
              asset: { kind: asset, video: camera.left, disparity: camera.disparity, detections: focus.detections,
                       focus: focus.focus, path: "\(asset)", fps: 15 }
            """
        let summary = try GraphRunner(graph: try Graph.parse(yaml, registry: NodeRegistry.standard().withViewfinder())).run()
        #expect(summary.failures.isEmpty)
        let changesPath = folder + "/take.cine.changes.json"
        var (s, preview) = try Self.open(asset, changes: changesPath)
        var c = SyntheticScene.Configuration(width: 640, height: 360, fps: 15, seed: 1)
        c.props = true
        let scene = SyntheticScene(c)
        func ball(_ j: Int) -> SyntheticProp? {
            scene.props(at: Double(s.records[j].time) / 1e9).first { $0.kind == .ball }
        }
        // A frame where the ball is in full view and no rectangle covers it.
        let i = try #require((5..<s.frameCount).first { j in
            guard let b = ball(j), b.visibleFraction == 1 else { return false }
            return !s.tapHits(at: j, x: b.bounds.x + b.bounds.width / 2, y: b.bounds.y + b.bounds.height / 2)
        })
        let b = ball(i)!
        let samples = try preview.follow(from: i, x: b.bounds.x + b.bounds.width / 2, y: b.bounds.y + b.bounds.height / 2,
                                         times: s.records.map(\.time))
        #expect(samples.count >= 10)
        // Each sample's frame; frames without one are where the ball was not seen.
        let frameOf = Dictionary(uniqueKeysWithValues: s.records.enumerated().map { ($0.element.time, $0.offset) })
        let sampled = samples.map { frameOf[$0.time.nanoseconds]! }
        var overlapping = 0, inView = 0, missedInView = 0
        for (k, sample) in samples.enumerated() {
            guard let t = ball(sampled[k]), t.visibleFraction >= 0.75 else { continue }
            inView += 1
            if ObjectTracker.iou(sample.bounds, t.bounds) >= 0.5 { overlapping += 1 }
            #expect(abs(sample.disparity - t.disparity) < 0.15 * t.disparity, "frame \(sampled[k]): \(sample.disparity) vs \(t.disparity)")
        }
        #expect(Double(overlapping) >= 0.9 * Double(inView), "\(overlapping) of \(inView)")
        // Hidden behind someone walking past and out again: found again, the same track. The
        // frames the ball was hidden have no sample; few where it was in full view lack one.
        let hidden = (i...sampled.last!).filter { (ball($0)?.visibleFraction ?? 0) < 0.25 }
        #expect(hidden.count >= 3, "the ball must be hidden for the check to mean anything")
        #expect(sampled.contains { j in hidden.contains { $0 < j } }, "found again after it was hidden at \(hidden)")
        for j in i...sampled.last! where (ball(j)?.visibleFraction ?? 0) >= 0.75 && !sampled.contains(j) { missedInView += 1 }
        #expect(missedInView <= 6, "\(missedInView) frames in full view without a sample")
        #expect(hidden.filter { sampled.contains($0) }.count <= 1, "samples while hidden: \(hidden.filter { sampled.contains($0) })")
        let id = try s.addTrack(samples, at: i)
        #expect(s.focus[i].detectionID == id && s.focus[i].kind == .weakUser)
        // While hidden the track has no box (the editor draws none); focus holds its plane.
        let gap = Timestamp(nanoseconds: s.records[hidden[hidden.count / 2]].time)
        let track = try #require(s.script.track(id: id))
        #expect(track.isInGap(gap) && track.detection(at: gap) == nil && track.disparity(at: gap) != nil)
        // Focus follows the ball while it is followed (once the rack has landed).
        let later = i + min(samples.count - 1, 8)
        #expect(sampled[min(samples.count - 1, 8)] == later, "the first frames are all sampled")
        #expect(s.focus[later].detectionID == id)
        #expect(abs(s.focus[later].disparity - samples[later - i].disparity) < 0.05 * samples[later - i].disparity + 0.2)
        // Saved, reopened and applied as a render applies it.
        try s.save()
        let changes = try ScriptChanges.load(contentsOf: changesPath)
        #expect(changes.tracks.map(\.id) == [id] && changes.tracks[0].samples == samples)
        var script = try CinematicScript(records: s.records)
        try changes.apply(to: &script)
        let when = Timestamp(nanoseconds: s.records[later].time)
        #expect(abs((script.focusDisparity(at: when) ?? 0) - samples[later - i].disparity) < 0.05 * samples[later - i].disparity + 0.2)
        let (reopened, _) = try Self.open(asset, changes: changesPath)
        #expect(reopened.focus[later].detectionID == id)
        // Undo takes the track away with its decision.
        try s.undo()
        #expect(s.changes.tracks.isEmpty && s.focus[later].detectionID != id)
    }

    @Test func aSeekGivesTheFrameAStraightReadGives() throws {
        let (folder, asset) = try Self.recordTake("seek")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (s, straight) = try Self.open(asset, changes: folder + "/none.json")
        let (_, jumping) = try Self.open(asset, changes: folder + "/none.json")
        let n = min(60, s.frameCount)
        var reference: [[UInt8]] = []
        for i in 0..<n { reference.append(try straight.jpeg(index: i, focusDisparity: s.focus[i].disparity, fNumber: 2.8)) }
        var rng = SeededRandom(seed: 11)
        for i in rng.permutation(of: n) {
            let jpeg = try jumping.jpeg(index: i, focusDisparity: s.focus[i].disparity, fNumber: 2.8)
            #expect(jpeg == reference[i], "frame \(i) reached by seeking differs from the straight read")
        }
        #expect(jumping.statistics.seeks > 10)
        #expect(straight.statistics.seeks <= 1)
    }

    @Test func theAPIRefusesWhatItCannotDo() async throws {
        let (folder, asset) = try Self.recordTake("api")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (session, preview) = try Self.open(asset, changes: folder + "/take.cine.changes.json")
        var settings = EditorServer.Settings(renderOutput: folder + "/out.mp4", exportFolder: folder + "/depth")
        settings.port = 0
        let server = try EditorServer(session: session, preview: preview, settings: settings)
        defer { server.stop() }
        let api = EditorClient(base: URL(string: server.url)!)
        let lease = try #require(try await api.send("POST", "api/claim", "{}").json["lease"] as? String)
        // A second tab is refused while the first is alive; it may take over.
        #expect(try await api.send("POST", "api/claim", "{}").status == 409)
        #expect(try await api.send("POST", "api/undo", "{}").status == 409, "an edit without the lease")
        let r = try await api.send("POST", "api/undo", "{}", lease: lease)
        #expect(r.status == 409 && r.error.contains("nothing to undo"))
        // Times outside the take, absent subjects, broken and foreign changes files.
        var bad = try await api.send("POST", "api/decisions", #"{"time": 99, "detectionID": 1}"#, lease: lease)
        #expect(bad.status == 400 && bad.error.contains("outside the take"))
        bad = try await api.send("POST", "api/decisions", #"{"time": 0, "detectionID": 4242}"#, lease: lease)
        #expect(bad.status == 404 && bad.error.contains("4242"))
        bad = try await api.send("POST", "api/changes", #"{"changes": {"format": "something-else"}}"#, lease: lease)
        #expect(bad.status == 400 && bad.error.contains("not a changes file"))
        bad = try await api.send("POST", "api/changes", #"{"changes": {"format": "cinegraph-changes", "version": 1, "decisions": [{"timeNanoseconds": 1000000000, "kind": "weakUser", "target": {"groupID": 999}}]}}"#, lease: lease)
        #expect(bad.status == 400 && bad.error.contains("999"), "\(bad.error)")
        bad = try await api.send("POST", "api/aperture", #"{"fNumber": 99}"#, lease: lease)
        #expect(bad.status == 400)
        bad = try await api.send("GET", "api/frame?index=100000")
        #expect(bad.status == 400)
        #expect(try await api.send("GET", "api/render/movie").status == 404)
        let frame = try await api.send("GET", "api/frame?time=4&width=320")
        #expect(frame.status == 200 && frame.body.starts(with: [0xFF, 0xD8]))
        #expect(!server.isDirty)
    }

    @Test func aPersonEditsInTheBrowserSavesAndRenders() async throws {
        let (folder, asset) = try Self.recordTake("browser")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let changes = folder + "/take.cine.changes.json"
        let (session, preview) = try Self.open(asset, changes: changes)
        let (i, d, other) = try #require(Self.target(session), "no frame with a tappable subject")
        var settings = EditorServer.Settings(renderOutput: folder + "/edited.mp4", exportFolder: folder + "/depth")
        settings.port = 0
        let server = try EditorServer(session: session, preview: preview, settings: settings)
        defer { server.stop() }
        let assetSize = try FileManager.default.attributesOfItem(atPath: asset)[.size] as? Int

        let browser = try await WebDriver(width: 1280, height: 720)
        defer { browser.quit() }
        try await browser.open(URL(string: server.url)!)
        try await eventually(20, "the page to load the take") { try await page(browser, "cg.ready && cg.shown === 0") as? Bool == true }

        // Seek: press the timeline where frame i is.
        let x = try await page(browser, "const r = document.getElementById('timeline').getBoundingClientRect(); return [r.left + (\(i) + 0.5) / cg.take.frames * r.width, r.top + 30]") as? [Double] ?? []
        try await browser.press(x: Int(x[0]), y: Int(x[1]), milliseconds: 30)
        try await eventually(10, "frame \(i) on screen") { try await page(browser, "cg.shown") as? Int == i }

        func tap() async throws {
            let p = Self.tapPoint(d)
            let v = try await page(browser, "const r = document.getElementById('overlay').getBoundingClientRect(); return [r.left + \(p.x) * r.width, r.top + \(p.y) * r.height]") as? [Double] ?? []
            try await browser.press(x: Int(v[0]), y: Int(v[1]), milliseconds: 40)
        }
        func mode() async throws -> [Int] { try await page(browser, "cg.script.focus[\(i)].slice(1)") as? [Int] ?? [] }
        try await tap()
        try await eventually(10, "weak focus on \(d.id)") { try await mode() == [d.id, 2] }
        try await browser.screenshot("edit-weak")
        try await tap()
        try await eventually(10, "strong focus on \(d.id)") { try await mode() == [d.id, 3] }
        try await eventually(10, "the frame redrawn") { try await page(browser, "cg.shown") as? Int == i }
        try await browser.screenshot("edit-strong")

        // Save: the changes file holds that one strong decision at frame i's time.
        try await browser.click("#save")
        try await eventually(10, "saved") { try await page(browser, "cg.script.dirty") as? Bool == false }
        let saved = try ScriptChanges.load(contentsOf: changes)
        #expect(saved.decisions == [FocusDecision(time: session.time(of: i), target: .detection(d.id), kind: .strongUser)])

        // Another tab takes the take over: this page says so at its next edit, then takes it back.
        _ = try await EditorClient(base: URL(string: server.url)!).send("POST", "api/claim", #"{"force": true}"#)
        try await browser.click("#undo")
        try await eventually(10, "the other-tab banner") { try await page(browser, "document.getElementById('banner').className") as? String == "on" }
        try await browser.screenshot("edit-other-tab")
        try await browser.click("#takeover")
        try await eventually(10, "the banner gone") { try await page(browser, "document.getElementById('banner').className") as? String == "" }

        // Export depth: every frame's disparity for other tools, with the camera sidecar.
        try await browser.click("#export")
        try await eventually(60, "the depth export") { try await page(browser, "cg.exported && cg.exported.frames") as? Int == session.frameCount }
        for file in ["camera.json", "metadata.jsonl", "disparity-000000.png", String(format: "disparity-%06d.pfm", session.frameCount - 1)] {
            #expect(FileManager.default.fileExists(atPath: folder + "/depth/" + file), "\(file) not exported")
        }

        // Render: progress, then the movie; sharp on the subject, blurred on the other.
        try await browser.click("#render")
        try await eventually(180, "the render to finish") { try await page(browser, "cg.render && cg.render.state") as? String == "done" }
        try await browser.screenshot("edit-rendered")
        let renderedFrame = try Self.frame(i, ofMovie: folder + "/edited.mp4")
        let original = try Self.frame(i, ofAsset: asset)
        let sharp = Self.difference(renderedFrame, original, in: d.bounds)
        let blurred = Self.difference(renderedFrame, original, in: other.bounds)
        #expect(sharp < 3 && blurred > 2 * sharp, "difference from the original: subject \(sharp), other subject \(blurred)")
        #expect(try FileManager.default.attributesOfItem(atPath: asset)[.size] as? Int == assetSize, "the asset was written")
        let seeks = try await page(browser, "cg.seeks") as? [Double] ?? []
        print("editor page: \(seeks.count) seeks, ms: \(seeks.map { Int($0) })")

        // A phone-sized viewport: no sideways scrolling, the frame and the timeline in view.
        let phone = try await WebDriver(width: 390, height: 844)
        defer { phone.quit() }
        try await phone.open(URL(string: server.url)!)
        try await eventually(20, "the page on a phone") { try await page(phone, "cg.ready && cg.shown === 0") as? Bool == true }
        // The first window still holds the take: this one says so, and takes it over.
        try await eventually(10, "the other-tab banner on the phone") { try await page(phone, "document.getElementById('banner').className") as? String == "on" }
        try await phone.click("#takeover")
        try await eventually(10, "the phone holds the take") { try await page(phone, "document.getElementById('banner').className") as? String == "" }
        let strongAt = try await page(phone, "cg.script.decisions.find(d => d.kind === 'strongUser').index") as? Int
        #expect(strongAt == i)
        try await phone.click("#decisions li .seek")
        try await eventually(10, "the phone at the decision") { try await page(phone, "cg.shown") as? Int == i }
        let fits = try await page(phone, """
            const t = document.getElementById('timeline').getBoundingClientRect();
            return document.documentElement.scrollWidth <= innerWidth && t.width > 300 && t.bottom <= innerHeight + 400
            """) as? Bool
        #expect(fits == true)
        try await phone.screenshot("edit-phone")
    }

    /// Runs `expression` in the page with `cg` bound to its test hook.
    static func page(_ browser: WebDriver, _ expression: String) async throws -> Any? {
        try await browser.execute(expression.contains("return") ? "const cg = window.cinegraphEdit; " + expression
                                  : "const cg = window.cinegraphEdit; return " + expression)
    }
    func page(_ browser: WebDriver, _ expression: String) async throws -> Any? { try await Self.page(browser, expression) }

    /// Frame `index` of a movie, I420.
    static func frame(_ index: Int, ofMovie path: String) throws -> Image {
        let p = try Pipeline("filesrc location=\(Pipeline.quoted(path)) ! decodebin ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false")
        let reader = try AppSinkReader(pipeline: p, name: "sink")
        try p.play()
        defer { p.stop() }
        for k in 0...index {
            guard case .frame(let image, _) = try reader.next(timeout: 10) else { throw TestFailure("the movie ends before frame \(index)") }
            if k == index { return image.copy() }
        }
        throw TestFailure("unreachable")
    }

    static func frame(_ index: Int, ofAsset path: String) throws -> Image {
        let track = try AssetTrackReader(path: path, track: .video)
        for k in 0...index {
            guard let (image, _) = try track.nextImage() else { throw TestFailure("the asset ends before frame \(index)") }
            if k == index { return image.copy() }
        }
        throw TestFailure("unreachable")
    }

    /// Mean absolute luma difference inside the middle of `rect` (normalised).
    static func difference(_ a: Image, _ b: Image, in rect: NormalizedRect) -> Double {
        let pa = a.plane(0), pb = b.plane(0)
        let x0 = Int((rect.x + rect.width * 0.25) * Double(a.width)), x1 = Int((rect.x + rect.width * 0.75) * Double(a.width))
        let y0 = Int((rect.y + rect.height * 0.25) * Double(a.height)), y1 = Int((rect.y + rect.height * 0.75) * Double(a.height))
        var sum = 0.0, n = 0
        for y in max(0, y0)..<min(a.height, y1) {
            let ra = pa.row(y, as: UInt8.self), rb = pb.row(y, as: UInt8.self)
            for x in max(0, x0)..<min(a.width, x1) {
                sum += abs(Double(ra[x]) - Double(rb[x]))
                n += 1
            }
        }
        return n > 0 ? sum / Double(n) : .infinity
    }
}

/// Plain requests to the editor's API.
struct EditorClient {
    let base: URL
    struct Reply {
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var error: String { json["error"] as? String ?? "" }
    }

    func send(_ method: String, _ path: String, _ json: String? = nil, lease: String? = nil) async throws -> Reply {
        var r = URLRequest(url: URL(string: path, relativeTo: base)!)
        r.httpMethod = method
        r.timeoutInterval = 30
        if let json {
            r.httpBody = Data(json.utf8)
            r.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let lease { r.setValue(lease, forHTTPHeaderField: EditorServer.leaseHeader) }
        let (data, response) = try await URLSession.shared.data(for: r)
        return Reply(status: (response as! HTTPURLResponse).statusCode, body: data)
    }
}
