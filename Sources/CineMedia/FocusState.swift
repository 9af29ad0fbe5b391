// FocusState: what the focus engine decided for one frame — where the focal plane is and how
// wide the simulated aperture is — as the bokeh renderer and still sink consume it, with the
// scene statuses (not enough light) the engine reported for that frame.

/// The focus of one frame: the focal plane as a disparity, the simulated aperture, and the
/// decision behind them.
public struct FocusState: Sendable, Hashable, Codable {
    /// Disparity of the focal plane, in pixels of the full-resolution reference view.
    public var focusDisparity: Double
    /// Simulated aperture as an f-number (smaller = shallower depth of field); `nil` leaves
    /// the renderer's own aperture parameter in charge.
    public var fNumber: Double?
    /// The detection in focus (its stable ``Detection/id``), when focus tracks an object.
    public var targetDetectionID: Int?
    /// Progress of the focus transition in force: 0 at its start, 1 once focus has landed.
    public var transitionProgress: Double
    /// Conditions that keep the engine from working well at this frame; empty = normal.
    /// In JSON, `"sceneStatuses": ["notEnoughLight"]`, left out when empty.
    public var sceneStatuses: SceneStatus

    /// Creates a focus state.
    public init(
        focusDisparity: Double, fNumber: Double? = nil, targetDetectionID: Int? = nil,
        transitionProgress: Double = 1, sceneStatuses: SceneStatus = []
    ) {
        self.focusDisparity = focusDisparity
        self.fNumber = fNumber
        self.targetDetectionID = targetDetectionID
        self.transitionProgress = transitionProgress
        self.sceneStatuses = sceneStatuses
    }

    private enum CodingKeys: String, CodingKey {
        case focusDisparity, fNumber, targetDetectionID, transitionProgress, sceneStatuses
    }

    /// Decodes a focus state; `sceneStatuses` may be absent (older producers): empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        focusDisparity = try c.decode(Double.self, forKey: .focusDisparity)
        fNumber = try c.decodeIfPresent(Double.self, forKey: .fNumber)
        targetDetectionID = try c.decodeIfPresent(Int.self, forKey: .targetDetectionID)
        transitionProgress = try c.decode(Double.self, forKey: .transitionProgress)
        sceneStatuses = try c.decodeIfPresent(SceneStatus.self, forKey: .sceneStatuses) ?? []
    }

    /// Encodes the focus state; empty scene statuses are left out (the JSON of a normal
    /// scene is the same as before statuses existed).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(focusDisparity, forKey: .focusDisparity)
        try c.encodeIfPresent(fNumber, forKey: .fNumber)
        try c.encodeIfPresent(targetDetectionID, forKey: .targetDetectionID)
        try c.encode(transitionProgress, forKey: .transitionProgress)
        if !sceneStatuses.isEmpty { try c.encode(sceneStatuses, forKey: .sceneStatuses) }
    }
}

extension SceneStatus: Codable, CustomStringConvertible {
    /// Every status with its name, in a fixed order.
    public static let named: [(status: SceneStatus, name: String)] = [(.notEnoughLight, "notEnoughLight")]

    /// The statuses by name, as written in JSON (`["notEnoughLight"]`; `[]` = normal).
    public var names: [String] { Self.named.filter { contains($0.status) }.map(\.name) }

    /// The statuses named in `names`; `nil` if a name is unknown.
    public init?(names: [String]) {
        var s: SceneStatus = []
        for n in names {
            guard let known = Self.named.first(where: { $0.name == n }) else { return nil }
            s.insert(known.status)
        }
        self = s
    }

    /// The names joined by commas (`notEnoughLight`; empty when normal).
    public var description: String { names.joined(separator: ",") }

    /// Decodes an array of names; unknown names are ignored (a later producer may add statuses).
    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        self = SceneStatus(names: names.filter { n in Self.named.contains { $0.name == n } }) ?? []
    }

    /// Encodes the statuses as an array of names.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(names)
    }
}
