// MonoDepth: people as layers at the disparity their apparent size gives, the room behind.
import CineMedia
import Testing
@testable import CineVision

@Suite struct MonoDepthTests {
    /// A 200×100 matte with two people: columns 20–59 and 120–179, rows 10…99.
    func matte() -> Image {
        let m = Image(width: 200, height: 100, format: .gray8)
        for y in 0..<100 {
            let row = m.plane(0).row(y, as: UInt8.self)
            for x in 0..<200 { row[x] = y >= 10 && ((20..<60).contains(x) || (120..<180).contains(x)) ? 255 : 0 }
        }
        return m
    }

    func face(_ id: Int, x: Double, height: Double) -> Detection {
        Detection(id: id, groupID: id, type: .humanFace, bounds: NormalizedRect(x: x, y: 0.1, width: height * 0.56, height: height))
    }

    func value(_ map: DisparityMap, _ nx: Double, _ ny: Double) -> Float {
        let v = map.values
        return v.plane(0).row(Int(ny * Double(v.height)), as: Float.self)[Int(nx * Double(v.width))]
    }

    @Test func aLargerFaceIsNearerAndTheRoomIsBehindEveryone() {
        var c = MonoDepth.Configuration()
        c.width = 200
        c.smoothing = 0
        var depth = MonoDepth(c)
        // Person A (left) has a face twice as tall as person B's.
        let detections = [face(1, x: 0.15, height: 0.3), face(2, x: 0.7, height: 0.15)]
        let map = depth.estimate(matte: matte(), detections: detections, referenceWidth: 1280, referenceHeight: 720)
        let a = c.baseline * 0.3 * 720 / c.faceHeight, b = c.baseline * 0.15 * 720 / c.faceHeight
        #expect(abs(Double(value(map, 0.2, 0.5)) - a) < 1e-3)
        #expect(abs(Double(value(map, 0.75, 0.5)) - b) < 1e-3)
        #expect(abs(Double(value(map, 0.5, 0.5)) - a * c.backgroundRatio) < 1e-3)  // between them: the room
        #expect(value(map, 0.2, 0.5) > value(map, 0.75, 0.5))
        #expect(map.referenceWidth == 1280 && map.values.width == 200 && map.values.height == 113)
        let placed = depth.withDisparities(detections)
        #expect(abs(placed[0].disparity! - a) < 1e-9 && abs(placed[1].disparity! - b) < 1e-9)
    }

    /// Someone the matte shows but no detector sees (from behind) gets a layer of their own, at
    /// the disparity their width gives, not the neighbour's.
    @Test func aPersonWithoutADetectionIsPlacedByTheirWidth() {
        var c = MonoDepth.Configuration()
        c.width = 200
        c.smoothing = 0
        var depth = MonoDepth(c)
        let map = depth.estimate(matte: matte(), detections: [face(1, x: 0.15, height: 0.3)], referenceWidth: 1280,
                                 referenceHeight: 720)
        let a = c.baseline * 0.3 * 720 / c.faceHeight
        let b = c.baseline * 0.3 * 1280 / c.bodyWidth  // columns 120–179: 30 % of the width
        #expect(abs(Double(value(map, 0.2, 0.5)) - a) < 1e-3)
        #expect(abs(Double(value(map, 0.75, 0.5)) - b) < 1e-3, "\(value(map, 0.75, 0.5)) for \(b)")
    }

    @Test func disparitiesSettleOverTimeAndAnEmptyRoomHasItsOwnPlane() {
        var c = MonoDepth.Configuration()
        c.width = 200
        c.smoothing = 0.5
        var depth = MonoDepth(c)
        _ = depth.estimate(matte: matte(), detections: [face(1, x: 0.15, height: 0.2)], referenceWidth: 1280, referenceHeight: 720)
        // The face jumps to twice the size: the person moves halfway there in one frame.
        let map = depth.estimate(matte: matte(), detections: [face(1, x: 0.15, height: 0.4)], referenceWidth: 1280, referenceHeight: 720)
        let small = c.baseline * 0.2 * 720 / c.faceHeight, large = 2 * small
        #expect(abs(Double(value(map, 0.2, 0.5)) - (small + large) / 2) < 1e-3)
        var empty = MonoDepth(c)
        let nobody = Image(width: 200, height: 100, format: .gray8)
        for y in 0..<100 { nobody.plane(0).row(y, as: UInt8.self).update(repeating: 0, count: 200) }
        let none = empty.estimate(matte: nobody, detections: [],
                                  referenceWidth: 1280, referenceHeight: 720)
        #expect(value(none, 0.5, 0.5) == Float(c.emptyRoomDisparity))
    }
}
