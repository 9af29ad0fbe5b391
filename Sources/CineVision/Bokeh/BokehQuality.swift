// BokehQuality: the speed / fidelity presets of the bokeh renderer.

/// How finely the bokeh renderer works: the largest blur radius it draws at a given working
/// resolution (larger blurs are drawn at half or quarter resolution) and the spacing of its
/// blur layers.
public enum BokehQuality: String, Sendable, CaseIterable, Hashable {
    /// Quarter resolution sooner, layers two working pixels apart: for previews.
    case draft
    /// The default: live 1080p.
    case standard
    /// Half resolution at most, layers one working pixel apart: for stills and offline renders.
    case high

    /// The largest blur radius, in working pixels, before the renderer halves its resolution.
    public var largestWorkingRadius: Double {
        switch self {
        case .draft: return 4
        case .standard: return 8
        case .high: return 16
        }
    }

    /// Radius step between blur layers, in working pixels.
    public var layerStep: Int { self == .draft ? 2 : 1 }

    /// The working scale (1, 2 or 4) for a largest blur radius of `maxRadius` full-resolution
    /// pixels: the smallest scale that keeps the radius within ``largestWorkingRadius``, at
    /// most 4 (2 for ``high``).
    public func workingScale(maxRadius: Double) -> Int {
        let limit = self == .high ? 2 : 4
        var s = 1
        while maxRadius / Double(s) > largestWorkingRadius && s < limit { s *= 2 }
        return s
    }
}
