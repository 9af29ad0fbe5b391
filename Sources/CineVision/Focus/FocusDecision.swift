// FocusDecision: one focus decision of the cinematic script — what to focus on from a
// time onwards, and how strongly (base from the automatic engine, weak or strong from the user).
import CineMedia

/// One decision: from ``time`` on, focus on ``target``. The time is when focus must have
/// arrived; the rack transition is placed before it.
public struct FocusDecision: Sendable, Hashable, Codable {
    /// When focus must have landed on the target.
    public var time: Timestamp
    /// What to focus on.
    public var target: FocusTarget
    /// Who decided, which fixes how long the decision holds.
    public var kind: FocusDecisionKind

    /// Creates a decision.
    public init(time: Timestamp, target: FocusTarget, kind: FocusDecisionKind) {
        self.time = time
        self.target = target
        self.kind = kind
    }

    private enum CodingKeys: String, CodingKey { case timeNanoseconds, target, kind }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = Timestamp(nanoseconds: try c.decode(Int64.self, forKey: .timeNanoseconds))
        target = try c.decode(FocusTarget.self, forKey: .target)
        kind = try c.decode(FocusDecisionKind.self, forKey: .kind)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time.nanoseconds, forKey: .timeNanoseconds)
        try c.encode(target, forKey: .target)
        try c.encode(kind, forKey: .kind)
    }
}
