// StabilizationMode: the named strengths of the stabilizer and the numbers behind each.

/// How strongly to stabilize, trading crop and latency for smoothness.
///
/// | mode                        | lookahead (frames) | σ (frames) | max crop | at 30 fps: cut-off |
/// |-----------------------------|-------------------:|-----------:|---------:|-------------------:|
/// | `off`                       | 0                  | —          | 0 %      | —                  |
/// | `standard`                  | 15                 | 5          | 8 %      | ≈ 1.0 Hz           |
/// | `cinematic`                 | 30                 | 10         | 12 %     | ≈ 0.5 Hz           |
/// | `cinematicExtended`         | 45                 | 15         | 18 %     | ≈ 0.32 Hz          |
/// | `cinematicExtendedEnhanced` | 60                 | 20         | 24 %     | ≈ 0.24 Hz          |
///
/// *Lookahead* is both the half-width of the smoothing window and the delay, in frames, between a
/// frame's arrival and its stabilized output. *σ* is the standard deviation of the Gaussian weights
/// of the path fit (the window is 3σ each side). *Max crop* is the fraction of each dimension the
/// output gives up: the stabilized frame is zoomed by `1 / (1 − crop)` and the correction is clamped
/// so the zoomed window stays inside the captured frame. The cut-off is where the fit passes half
/// of a sinusoidal shake (`≈ 0.19 / σ` cycles per frame for the Gaussian); faster shake is removed.
public enum StabilizationMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// No stabilization: frames pass unchanged.
    case off
    /// Light smoothing for handheld shots with deliberate motion.
    case standard
    /// Smooth, film-like camera moves.
    case cinematic
    /// Strong smoothing with a larger crop.
    case cinematicExtended
    /// The strongest smoothing, the largest crop and the longest lookahead.
    case cinematicExtendedEnhanced

    /// Frames of lookahead (and of latency); the smoothing window is this many frames each side.
    public var lookaheadFrames: Int {
        switch self {
        case .off: return 0
        case .standard: return 15
        case .cinematic: return 30
        case .cinematicExtended: return 45
        case .cinematicExtendedEnhanced: return 60
        }
    }

    /// Standard deviation, in frames, of the Gaussian weights of the path fit.
    public var smoothingSigma: Double { Double(lookaheadFrames) / 3 }

    /// The fraction of each dimension given up to stabilization (0 … 1).
    public var maxCropFraction: Double {
        switch self {
        case .off: return 0
        case .standard: return 0.08
        case .cinematic: return 0.12
        case .cinematicExtended: return 0.18
        case .cinematicExtendedEnhanced: return 0.24
        }
    }

    /// The mode's command-line spelling (`cinematic-extended-enhanced`).
    public var argumentName: String {
        switch self {
        case .off: return "off"
        case .standard: return "standard"
        case .cinematic: return "cinematic"
        case .cinematicExtended: return "cinematic-extended"
        case .cinematicExtendedEnhanced: return "cinematic-extended-enhanced"
        }
    }

    /// The mode with the given command-line spelling.
    public init?(argumentName: String) {
        guard let m = StabilizationMode.allCases.first(where: { $0.argumentName == argumentName }) else { return nil }
        self = m
    }

    public var description: String { argumentName }
}
