// MonoDepth: a disparity map from one lens — people as layers at disparities their apparent size
// gives (a nearer face is larger), each person's matte region at its own disparity, the room
// behind them at one farther plane, smooth over time. What it cannot know: the room's own depth
// (a wall and a shelf are one plane), or a person's depth where the detector sees no face or body.
import CineMedia
import Foundation

/// Turns a person matte and the frame's detections into a ``DisparityMap`` the focus and bokeh
/// take unchanged, as if a stereo camera with a `baseline` had seen the people.
public struct MonoDepth: Sendable {
    /// The assumptions that stand in for a second lens.
    public struct Configuration: Sendable, Hashable {
        /// The stereo baseline the disparities imitate, metres.
        public var baseline = 0.06
        /// Height of a face (chin to hairline), metres: the ruler of the apparent size.
        public var faceHeight = 0.22
        /// Width of a body's box (shoulders), metres, for people seen without a face.
        public var bodyWidth = 0.45
        /// The room behind the people, as a share of the nearest person's disparity (0.3 = three
        /// times as far away).
        public var backgroundRatio = 0.3
        /// Disparity of the room while nobody is in view, reference pixels.
        public var emptyRoomDisparity = 2.0
        /// Width of the map made (its height keeps the frame's aspect).
        public var width = 480
        /// Weight of the previous frame in each person's and the room's disparity (0 = none).
        public var smoothing = 0.7
        /// Width of the matte band (around ½) over which a sample goes from the room's disparity
        /// to the person's; 1 = the matte as it is, small = a crisp depth edge. 0.1 keeps the
        /// background's colour out of the sharp subject on real portraits (MatteEdgeTests).
        public var edgeRamp = 0.1
        public init() {}
    }

    public var configuration: Configuration
    /// Smoothed disparity per person (detection group), and of the room.
    private var people: [Int: Double] = [:]
    private var room: Double?
    /// Each group's disparity when last seen (a holder whose hand hides their face), and the
    /// disparity given to each shown object (by detection ID) this frame.
    private var lastSeen: [Int: Double] = [:]
    private var shown: [Int: Double] = [:]

    public init(_ configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// One person as the map places them: horizontal extent (normalised) and disparity.
    struct Layer: Equatable {
        var left: Double
        var right: Double
        var centre: Double
        var disparity: Double
    }

    /// The disparity a detection's apparent size gives, in reference pixels: `B · f / Z` with
    /// `Z = f · size / apparent`, so `B · apparent / size` (faces by height, bodies by width).
    func disparity(of d: Detection, referenceWidth w: Int, referenceHeight h: Int) -> Double? {
        let c = configuration
        switch d.type {
        case .humanFace: return c.baseline * d.bounds.height * Double(h) / c.faceHeight
        case .humanBody: return c.baseline * d.bounds.width * Double(w) / c.bodyWidth
        default: return nil
        }
    }

    /// The people of this frame (one layer per detection group, the face preferred), smoothed
    /// over time by group; groups no longer seen are forgotten.
    mutating func layers(_ detections: Detections, referenceWidth w: Int, referenceHeight h: Int) -> [Layer] {
        var byGroup: [Int: (face: Detection?, body: Detection?)] = [:]
        for d in detections where d.type == .humanFace || d.type == .humanBody {
            var g = byGroup[d.groupID] ?? (nil, nil)
            if d.type == .humanFace { g.face = d } else { g.body = d }
            byGroup[d.groupID] = g
        }
        var out: [Layer] = []
        var seen: [Int: Double] = [:]
        for (group, g) in byGroup.sorted(by: { $0.key < $1.key }) {
            guard let measured = (g.face.flatMap { disparity(of: $0, referenceWidth: w, referenceHeight: h) })
                ?? (g.body.flatMap { disparity(of: $0, referenceWidth: w, referenceHeight: h) }) else { continue }
            let s = configuration.smoothing
            let d = people[group].map { s * $0 + (1 - s) * measured } ?? measured
            seen[group] = d
            // The body's columns when there is a body, else three face widths around the face.
            let box = g.body?.bounds ?? g.face!.bounds
            let wide = g.body == nil ? box.width : 0
            out.append(Layer(left: box.x - wide, right: box.x + box.width + wide, centre: box.x + box.width / 2, disparity: d))
        }
        people = seen
        for (group, d) in seen { lastSeen[group] = d }
        if lastSeen.count > 64 { lastSeen = seen }
        return out
    }

    /// Something held up to the lens without a map (the detector's `showcase` with one lens): a
    /// shown detection with a ``Detection/nearness`` is placed at its holder's disparity (their
    /// group's, as last seen) times that nearness, smoothed like a person; an ellipse in its box.
    mutating func shownObjects(_ detections: Detections) -> [(bounds: NormalizedRect, disparity: Double)] {
        var out: [(bounds: NormalizedRect, disparity: Double)] = []
        var next: [Int: Double] = [:]
        for d in detections where d.shown == true {
            guard let nearness = d.nearness, let base = people[d.groupID] ?? lastSeen[d.groupID] else { continue }
            let s = configuration.smoothing
            let value = shown[d.id].map { s * $0 + (1 - s) * base * nearness } ?? base * nearness
            next[d.id] = value
            out.append((d.bounds, value))
        }
        shown = next
        return out
    }

    /// The map for one frame: `matte` (`gray8`, any size; 255 = person) and the frame's
    /// detections, for a reference view of `referenceWidth`×`referenceHeight`. Each map column
    /// belongs to the nearest person whose extent covers it (else the person whose centre is
    /// closest); a sample is `room + α · (person − room)` with α the matte there (bilinearly
    /// sampled, its soft band narrowed to ``Configuration/edgeRamp``). Cost: one pass over the map (≈ 130k samples at 480×270).
    public mutating func estimate(matte: Image, detections: Detections, referenceWidth rw: Int, referenceHeight rh: Int,
                                  into reuse: Image? = nil, frame: Image? = nil) -> DisparityMap {
        let c = configuration
        let (w, h) = mapSize(referenceWidth: rw, referenceHeight: rh)
        var layers = layers(detections, referenceWidth: rw, referenceHeight: rh)
        layers += unseenPeople(in: matte, besides: layers, referenceWidth: rw)
        let target = layers.map(\.disparity).max().map { $0 * c.backgroundRatio } ?? c.emptyRoomDisparity
        let bg = room.map { c.smoothing * $0 + (1 - c.smoothing) * target } ?? target
        room = bg
        // The person disparity of each column.
        var column = [Float](repeating: Float(bg), count: w)
        for x in 0..<w where !layers.isEmpty {
            let nx = (Double(x) + 0.5) / Double(w)
            var covering: Double?, closest = layers[0]
            for l in layers {
                if nx >= l.left && nx <= l.right { covering = max(covering ?? l.disparity, l.disparity) }
                if abs(l.centre - nx) < abs(closest.centre - nx) { closest = l }
            }
            column[x] = Float(covering ?? closest.disparity)
        }
        let values = reuse.flatMap { $0.width == w && $0.height == h && $0.format == .float32 ? $0 : nil }
            ?? Image(width: w, height: h, format: .float32)
        let plane = matte.plane(0)
        let sx = Double(matte.width) / Double(w), sy = Double(matte.height) / Double(h)
        let room = Float(bg)
        // The matte's soft band narrowed to `edgeRamp` around ½: a wide ramp of in-between
        // depths would blur the subject's rim and spread it outwards (a halo).
        let lo = Float(0.5 - c.edgeRamp / 2), inverseRamp = Float(1 / max(c.edgeRamp, 1e-3))
        for y in 0..<h {
            let row = values.plane(0).row(y, as: Float.self)
            let fy = (Double(y) + 0.5) * sy - 0.5
            for x in 0..<w {
                let a = RGBSampler.bilinear(plane, (Double(x) + 0.5) * sx - 0.5, fy, channels: 1, channel: 0) / 255
                let t = max(0, min(1, (Float(a) - lo) * inverseRamp))
                let alpha = t * t * (3 - 2 * t)
                row[x] = room + alpha * (column[x] - room)
            }
        }
        for object in shownObjects(detections) {
            paint(object.bounds, disparity: Float(object.disparity), into: values, matte: plane, sx: sx, sy: sy, lo: lo,
                  inverseRamp: inverseRamp, frame: frame)
        }
        return DisparityMap(values: values, referenceWidth: rw, referenceHeight: rh)
    }

    /// Writes `disparity` into `map` within an ellipse inscribed in `bounds` (normalised), its
    /// rim ramped over a tenth of its radius, where the matte holds the person (a hand and what
    /// it holds up are in front of them; the room beside the hand keeps its depth) or, with the
    /// `frame`, where the picture's colour is unlike any on a ring just outside the box (what
    /// is held, which the person matte often leaves out, against the room around it). Cost: the
    /// box's samples, 32 ring colours each.
    private func paint(_ bounds: NormalizedRect, disparity: Float, into map: Image, matte: Plane, sx: Double, sy: Double,
                       lo: Float, inverseRamp: Float, frame: Image?) {
        let w = map.width, h = map.height
        let cx = (bounds.x + bounds.width / 2) * Double(w), cy = (bounds.y + bounds.height / 2) * Double(h)
        let rx = bounds.width / 2 * Double(w), ry = bounds.height / 2 * Double(h)
        guard rx >= 0.5, ry >= 0.5 else { return }
        let x0 = max(0, Int(cx - rx)), x1 = min(w - 1, Int(cx + rx)), y0 = max(0, Int(cy - ry)), y1 = min(h - 1, Int(cy + ry))
        guard x1 >= x0, y1 >= y0 else { return }
        // The room's colours around the object: a ring 1.2 radii out, in the frame's pixels.
        let sampler = frame.map { RGBSampler($0) }
        let fx = frame.map { Double($0.width) / Double(w) } ?? 1, fyScale = frame.map { Double($0.height) / Double(h) } ?? 1
        var ring: [(Float, Float, Float)] = []
        if let sampler, let frame {
            for k in 0..<32 {
                let a = Double(k) / 32 * 2 * Double.pi
                let px = (cx + 1.2 * rx * cos(a)) * fx, py = (cy + 1.2 * ry * sin(a)) * fyScale
                guard px >= 0, py >= 0, px < Double(frame.width), py < Double(frame.height) else { continue }
                ring.append(sampler.rgb(px - 0.5, py - 0.5))
            }
        }
        for y in y0...y1 {
            let row = map.plane(0).row(y, as: Float.self)
            let v = (Double(y) + 0.5 - cy) / ry, fy = (Double(y) + 0.5) * sy - 0.5
            for x in x0...x1 {
                let u = (Double(x) + 0.5 - cx) / rx
                let ellipse = Float(max(0, min(1, (1 - (u * u + v * v).squareRoot()) * 10)))
                guard ellipse > 0 else { continue }
                let m = RGBSampler.bilinear(matte, (Double(x) + 0.5) * sx - 0.5, fy, channels: 1, channel: 0) / 255
                let t = max(0, min(1, (Float(m) - lo) * inverseRamp))
                var weight = t * t * (3 - 2 * t)
                if let sampler, !ring.isEmpty, weight < 1 {
                    let c = sampler.rgb((Double(x) + 0.5) * fx - 0.5, (Double(y) + 0.5) * fyScale - 0.5)
                    var nearest = Float.infinity
                    for r in ring {
                        let d = (c.0 - r.0) * (c.0 - r.0) + (c.1 - r.1) * (c.1 - r.1) + (c.2 - r.2) * (c.2 - r.2)
                        nearest = min(nearest, d)
                    }
                    // Unlike the room by 30 levels or more: held; by 15 or less: the room.
                    let unlike = max(0, min(1, (nearest.squareRoot() - 15) / 15))
                    weight = max(weight, unlike * unlike * (3 - 2 * unlike))
                }
                row[x] += ellipse * weight * (disparity - row[x])
            }
        }
    }

    /// People the matte shows but no detection does (seen from behind, a face turned away): each
    /// run of matte columns that no layer overlaps becomes a layer at the disparity its width
    /// gives against ``Configuration/bodyWidth``. Runs narrower than 3 % of the frame are noise.
    /// Cost: one pass over the matte.
    func unseenPeople(in matte: Image, besides layers: [Layer], referenceWidth rw: Int) -> [Layer] {
        let w = matte.width
        var occupied = [Bool](repeating: false, count: w)
        for y in 0..<matte.height {
            let row = matte.plane(0).row(y, as: UInt8.self)
            for x in 0..<w where row[x] >= 128 { occupied[x] = true }
        }
        var out: [Layer] = []
        var x = 0
        while x < w {
            guard occupied[x] else { x += 1; continue }
            let start = x
            while x < w && occupied[x] { x += 1 }
            let left = Double(start) / Double(w), right = Double(x) / Double(w)
            guard right - left >= 0.03, !layers.contains(where: { $0.left < right && $0.right > left }) else { continue }
            let d = configuration.baseline * (right - left) * Double(rw) / configuration.bodyWidth
            out.append(Layer(left: left, right: right, centre: (left + right) / 2, disparity: d))
        }
        return out
    }

    /// The size of the maps made for a reference view: `width`, and the height its aspect gives.
    public func mapSize(referenceWidth rw: Int, referenceHeight rh: Int) -> (width: Int, height: Int) {
        let w = configuration.width
        return (w, max(2, Int((Double(w) * Double(rh) / Double(rw)).rounded())))
    }

    /// `detections` with each person's disparity as the map gives it (the layer's own value).
    public func withDisparities(_ detections: Detections) -> Detections {
        detections.map { d in
            var d = d
            if let p = shown[d.id] { d.disparity = p } else if let p = people[d.groupID] { d.disparity = p }
            return d
        }
    }
}
