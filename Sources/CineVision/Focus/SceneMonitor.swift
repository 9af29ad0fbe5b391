// SceneMonitor: scene statuses for the cinematic engine — `notEnoughLight` from luminance,
// noise and disparity confidence, entered and left with hysteresis in level and in time.
import CineMedia

/// Watches each frame's ``SceneMeasurement`` and reports the scene statuses in force (empty =
/// normal). An explicit state machine: all state is in this value.
///
/// A frame is **dark** when its luminance is below ``Configuration/enterLuminance``, or its
/// signal-to-noise ratio below ``Configuration/enterSignalToNoise`` (a dim scene amplified by
/// gain), or its disparity confidence below ``Configuration/enterConfidence`` while the scene
/// is dim (luminance below ``Configuration/dimLuminance``: a low confidence in a bright scene
/// is a textureless wall, not darkness). It is **clear** when every measured signal is past
/// its leave threshold (the confidence only while dim). `notEnoughLight` is entered after
/// ``Configuration/enterAfter`` seconds of dark frames in a row and left after
/// ``Configuration/leaveAfter`` seconds of clear frames in a row; frames in between keep the
/// status and restart the count. Signals not measured (`nil`) neither enter nor block leaving.
public struct SceneMonitor: Sendable {
    /// Thresholds and times (docs/focus.md).
    public struct Configuration: Sendable, Hashable {
        /// Mean luma (0…1) below which a frame is dark.
        public var enterLuminance = 0.10
        /// Mean luma above which a frame can be clear.
        public var leaveLuminance = 0.16
        /// Luminance / noise below which a frame is dark.
        public var enterSignalToNoise = 5.0
        /// Luminance / noise above which a frame can be clear.
        public var leaveSignalToNoise = 8.0
        /// Mean disparity confidence (0…1) below which a dim frame is dark.
        public var enterConfidence = 0.25
        /// Mean disparity confidence above which a dim frame can be clear.
        public var leaveConfidence = 0.35
        /// Luminance below which the disparity confidence counts.
        public var dimLuminance = 0.3
        /// Seconds of dark frames before `notEnoughLight` is reported.
        public var enterAfter = 0.5
        /// Seconds of clear frames before it is withdrawn.
        public var leaveAfter = 1.0
        /// The defaults.
        public init() {}
    }

    /// The thresholds.
    public let configuration: Configuration
    /// The statuses in force.
    public private(set) var statuses: SceneStatus = []
    /// Since when the frames have asked for a change of ``statuses``, if they do.
    public private(set) var changePendingSince: Timestamp?

    /// Creates a monitor in the normal state.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Whether a frame is dark by the thresholds.
    public func isDark(_ m: SceneMeasurement) -> Bool {
        let c = configuration
        if let l = m.luminance, l < c.enterLuminance { return true }
        if let snr = m.signalToNoise, snr < c.enterSignalToNoise { return true }
        if let conf = m.disparityConfidence, conf < c.enterConfidence, (m.luminance ?? 0) < c.dimLuminance {
            return true
        }
        return false
    }

    /// Whether a frame is clear by the thresholds.
    public func isClear(_ m: SceneMeasurement) -> Bool {
        let c = configuration
        if let l = m.luminance, l <= c.leaveLuminance { return false }
        if let snr = m.signalToNoise, snr <= c.leaveSignalToNoise { return false }
        if let conf = m.disparityConfidence, conf <= c.leaveConfidence, (m.luminance ?? 0) < c.dimLuminance {
            return false
        }
        return true
    }

    /// Takes the frame at `time` (times increase) and returns the statuses in force after it.
    public mutating func update(time: Timestamp, _ m: SceneMeasurement) -> SceneStatus {
        let active = statuses.contains(.notEnoughLight)
        guard active ? isClear(m) : isDark(m) else {
            changePendingSince = nil
            return statuses
        }
        let since = changePendingSince ?? time
        changePendingSince = since
        if (time - since).seconds >= (active ? configuration.leaveAfter : configuration.enterAfter) - 1e-9 {
            if active { statuses.remove(.notEnoughLight) } else { statuses.insert(.notEnoughLight) }
            changePendingSince = nil
        }
        return statuses
    }
}
