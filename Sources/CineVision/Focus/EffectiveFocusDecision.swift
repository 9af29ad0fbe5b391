// EffectiveFocusDecision: a decision of the script at the time it takes effect under
// the rules.
import CineMedia

/// A decision in force from ``time`` on (the decision's own time, or the time a strong or weak
/// decision's track ended and an earlier base decision resumed).
public struct EffectiveFocusDecision: Sendable, Hashable {
    /// When focus must have landed on the decision's target.
    public var time: Timestamp
    /// The decision that takes effect.
    public var decision: FocusDecision
}
