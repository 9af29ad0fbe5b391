// FrameCallbacks: named Swift callbacks that a `frames` sink hands its frames to — how an
// embedding app receives rendered pixels from a graph written as a config.
import CineMedia
import Synchronization

/// A process-wide table of frame callbacks, looked up by the `callback` parameter of `frames`.
///
/// ```swift
/// FrameCallbacks.register("to-network") { image, time in send(image, time) }
/// // config: out: { kind: frames, video: bokeh, callback: to-network }
/// ```
/// Callbacks run on the sink's thread, one frame at a time; a slow callback slows the sink
/// (and, downstream of a live camera, makes its input edge drop frames — counted in the summary).
public enum FrameCallbacks {
    /// A callback receiving each frame and its timestamp.
    public typealias Callback = @Sendable (Image, Timestamp) -> Void
    private static let table = Mutex<[String: Callback]>([:])

    /// Registers (or replaces) the callback called `name`.
    public static func register(_ name: String, _ callback: @escaping Callback) {
        table.withLock { $0[name] = callback }
    }

    /// Removes the callback called `name`.
    public static func remove(_ name: String) { _ = table.withLock { $0.removeValue(forKey: name) } }

    /// The callback called `name`, if registered.
    public static func callback(named name: String) -> Callback? { table.withLock { $0[name] } }

    /// Registered names, sorted.
    public static var names: [String] { table.withLock { $0.keys.sorted() } }
}
