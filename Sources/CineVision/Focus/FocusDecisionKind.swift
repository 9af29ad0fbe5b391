// FocusDecisionKind: who made a focus decision — the automatic engine or the user,
// weakly or strongly — which fixes how long it holds.

/// Who made a decision, which fixes how long it holds (docs/focus.md).
public enum FocusDecisionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// From the automatic engine; holds until the next decision that takes effect.
    case base
    /// From the user; holds until the next base decision (or until its track ends).
    case weakUser
    /// From the user; holds until the next user decision or until its track ends.
    case strongUser

    /// Whether the user made it.
    public var isUser: Bool { self != .base }
}
