// FocusTarget: what a focus decision focuses on — a detection, a subject (group) or a
// fixed plane — and how to find it in a frame's detections.
import CineMedia

/// What a decision focuses on.
public enum FocusTarget: Sendable, Hashable, Codable {
    /// A detection by its stable ID (its group keeps the track alive while, say, the face turns away).
    case detection(Int)
    /// A subject: any detection of the group (the face when present, otherwise the body).
    case group(Int)
    /// A fixed focal plane at this disparity (full-resolution pixels); its track never ends.
    case disparity(Double)

    private enum CodingKeys: String, CodingKey { case detectionID, groupID, disparity }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try c.decodeIfPresent(Int.self, forKey: .detectionID) {
            self = .detection(id)
        } else if let g = try c.decodeIfPresent(Int.self, forKey: .groupID) {
            self = .group(g)
        } else if let d = try c.decodeIfPresent(Double.self, forKey: .disparity) {
            self = .disparity(d)
        } else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath, debugDescription: "a focus target needs detectionID, groupID or disparity"
                ))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .detection(let id): try c.encode(id, forKey: .detectionID)
        case .group(let g): try c.encode(g, forKey: .groupID)
        case .disparity(let d): try c.encode(d, forKey: .disparity)
        }
    }
}

extension FocusTarget {
    /// The detection this target focuses on in `detections`: the detection itself when present,
    /// otherwise a face of its group facing the camera, otherwise any detection of the group;
    /// `nil` for a fixed plane or when the subject is absent. `group` is the detection's group
    /// when known (a detection target whose own ID is gone is found through it).
    public func locate(in detections: Detections, group: Int? = nil) -> Detection? {
        let g: Int
        switch self {
        case .disparity: return nil
        case .detection(let id):
            if let d = detections.first(where: { $0.id == id }) { return d }
            guard let group else { return nil }
            g = group
        case .group(let id): g = id
        }
        var best: Detection?
        for d in detections where d.groupID == g {
            let isFace = d.type == .humanFace || d.type == .catFace || d.type == .dogFace
            if isFace && d.facing != .away { return d }
            if best == nil { best = d }
        }
        return best
    }

    /// Whether the target follows a subject (a fixed plane does not, and its track never ends).
    public var isTracked: Bool {
        if case .disparity = self { return false }
        return true
    }

    /// The disparity to focus at for this target in `detections`, if it can be found.
    public func disparity(in detections: Detections, group: Int? = nil) -> Double? {
        if case .disparity(let d) = self { return d }
        return locate(in: detections, group: group)?.disparity
    }
}
