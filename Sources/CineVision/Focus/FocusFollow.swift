// FocusFollow: which rule the automatic director follows — the most prominent subject, or
// whoever is speaking.

/// What the automatic engine puts in focus.
public enum FocusFollow: String, Sendable, Hashable, CaseIterable, Codable {
    /// The most prominent subject: facing the camera, large, near, central, new (Apple's rule).
    case prominent
    /// Whoever is speaking (faces marked ``CineMedia/Detection/speaking``), once they have spoken
    /// for ``FocusEngineConfiguration/speakerDwell``; silence keeps the last speaker; before
    /// anyone speaks, and when the last speaker leaves, the prominent subject.
    case speaker
}
