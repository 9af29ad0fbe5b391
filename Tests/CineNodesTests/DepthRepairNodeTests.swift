// The depth-repair node: carried maps (the very samples sent again) are held until the next
// computed map and sent re-made, each frame at its own instant with its video and detections;
// a run at the end keeps the map recorded.
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Testing

@Suite struct DepthRepairNodeTests {
    /// Frame `index` of a 640×360 synthetic take and its exact disparity at a quarter of the size.
    static func frame(_ scene: SyntheticScene, _ index: Int) -> (Image, DisparityMap) {
        let w = 640, h = 360
        let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
        let truth = Image(width: w, height: h, format: .float32)
        scene.render(frame: index, left: left, right: right, groundTruth: truth)
        let small = Image(width: w / 4, height: h / 4, format: .float32)
        for y in 0..<h / 4 {
            let o = small.plane(0).row(y, as: Float.self), r = truth.plane(0).row(4 * y + 2, as: Float.self)
            for x in 0..<w / 4 { o[x] = r[4 * x + 2] }
        }
        return (left, DisparityMap(values: small, referenceWidth: w, referenceHeight: h))
    }

    /// Cells more than 2 px from `truth`.
    static func off(_ m: DisparityMap, _ truth: DisparityMap) -> Int {
        var bad = 0
        for y in 0..<m.values.height {
            let a = m.values.plane(0).row(y, as: Float.self), b = truth.values.plane(0).row(y, as: Float.self)
            for x in 0..<m.values.width where b[x].isFinite && !(abs(a[x] - b[x]) <= 2) { bad += 1 }
        }
        return bad
    }

    @Test func carriedMapsAreHeldAndSentReMadeAtTheirOwnInstants() throws {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 640, height: 360, fps: 30, seed: 1))
        var h = try NodeHarness(DepthRepairNode.self)
        try h.start()
        // Frames 150…175: maps computed at 150, 160 and 170; the others carried (sent again).
        var sent: [SentPacket<DepthRepairNode>] = []
        var truths: [DisparityMap] = [], videos: [Image] = []
        var carried: DisparityMap?
        for i in 150...175 {
            let (video, truth) = Self.frame(scene, i)
            truths.append(truth)
            videos.append(video)
            if i % 10 == 0 { carried = truth }
            let detections = [Detection(id: i, type: .humanFace, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.1, height: 0.1))]
            sent += try h.process([\.$video: video, \.$disparity: carried!, \.$detections: detections],
                                  at: Timestamp(frame: i, fps: 30))
        }
        // Nothing after 170's run: 171…175 wait for a map that never comes.
        #expect(sent.count == 21)
        sent += try h.finish()
        #expect(sent.map(\.timestamp) == (150...175).map { Timestamp(frame: $0, fps: 30) })
        var carriedOff = 0, remadeOff = 0
        for (k, p) in sent.enumerated() {
            let i = 150 + k
            #expect(p[\.$videoOut]?.buffer === videos[k].buffer, "frame \(i)'s video")
            #expect(p[\.$detectionsOut]?.first?.id == i, "frame \(i)'s detections")
            let map = try #require(p[\.$repaired])
            let keyIndex = (i / 10) * 10 - 150
            if i % 10 == 0 || i > 170 {
                // Computed maps, and the run with no map after it, are sent as recorded.
                #expect(map.values.buffer === truths[keyIndex].values.buffer, "frame \(i)")
            } else {
                carriedOff += Self.off(truths[keyIndex], truths[k])
                remadeOff += Self.off(map, truths[k])
            }
        }
        #expect(carriedOff > 500, "the people must move for the check to mean anything: \(carriedOff)")
        #expect(remadeOff * 3 < carriedOff, "re-made \(remadeOff) cells off, carried \(carriedOff)")
        #expect(h.events.contains { $0.name == "repaired" && $0.fields["maps"] == "18" }, "\(h.events)")
    }

    @Test func withMapsMatchedAgainCarriedOnesAreReplacedAtOnce() throws {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 640, height: 360, fps: 30, seed: 1))
        var h = try NodeHarness(DepthRepairNode.self)
        try h.start()
        var carried: DisparityMap?
        var computed: [DisparityMap] = [], recomputed: [DisparityMap] = []
        for i in 150..<160 {
            let (video, truth) = Self.frame(scene, i)
            if i % 5 == 0 { carried = truth }
            computed.append(carried!)
            recomputed.append(Self.frame(scene, i).1)
            let sent = try h.process([\.$video: video, \.$disparity: carried!, \.$detections: Detections(), \.$recomputed: recomputed.last!],
                                     at: Timestamp(frame: i, fps: 30))
            // Nothing held: each frame leaves with its own instant.
            try #require(sent.count == 1)
            #expect(sent[0].timestamp == Timestamp(frame: i, fps: 30))
            let map = try #require(sent[0][\.$repaired])
            // Computed maps pass as recorded; carried ones are the maps matched again.
            #expect(map.values.buffer === (i % 5 == 0 ? computed.last! : recomputed.last!).values.buffer, "frame \(i)")
        }
        _ = try h.finish()
        #expect(h.events.contains { $0.name == "repaired" && $0.fields["maps"] == "8" }, "\(h.events)")
    }

    @Test func aMapTheRecordSaysWasCarriedIsReplacedEvenWhenStabilizationMovedIt() throws {
        // A stabilized take: a carried map is the earlier map moved by this frame's correction, so
        // its samples differ; the asset's record says it was carried.
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 640, height: 360, fps: 30, seed: 1))
        var h = try NodeHarness(DepthRepairNode.self)
        try h.start()
        for i in 150..<154 {
            let (video, truth) = Self.frame(scene, i)
            let moved = Self.frame(scene, i - 1).1  // not the previous map's samples
            var record = AssetFrameRecord(time: Timestamp(frame: i, fps: 30).nanoseconds)
            if i > 150 { record.carriedInputs = ["disparity"] }
            let sent = try h.process([\.$video: video, \.$disparity: i == 150 ? truth : moved, \.$detections: Detections(),
                                      \.$recomputed: truth, \.$record: record], at: Timestamp(frame: i, fps: 30))
            try #require(sent.count == 1)
            #expect(try #require(sent[0][\.$repaired]).values.buffer === truth.values.buffer, "frame \(i)")
        }
        _ = try h.finish()
        #expect(h.events.contains { $0.name == "repaired" && $0.fields["maps"] == "3" }, "\(h.events)")
    }
}
