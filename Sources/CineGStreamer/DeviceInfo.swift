// DeviceInfo: a capture device (camera or microphone) as GStreamer's device monitor sees it.

/// A camera or microphone found by ``DeviceMonitor``.
public struct DeviceInfo: Sendable {
    /// What a device captures.
    public enum Kind: String, Sendable, CaseIterable {
        /// A video source (`Video/Source`).
        case camera
        /// An audio source (`Audio/Source`).
        case microphone
    }

    /// The name to show a user.
    public var name: String
    /// The device node or address (`/dev/video0`), when the provider states one.
    public var path: String?
    /// Camera or microphone.
    public var kind: Kind
    /// GStreamer's device class, for example `Video/Source`.
    public var deviceClass: String
    /// What the device can produce: one caps string per structure.
    public var formats: [String]

    /// Creates a device description.
    public init(name: String, path: String?, kind: Kind, deviceClass: String, formats: [String]) {
        self.name = name
        self.path = path
        self.kind = kind
        self.deviceClass = deviceClass
        self.formats = formats
    }
}
