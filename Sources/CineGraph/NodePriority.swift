// NodePriority: what a node's work is for — the take, or a preview — which decides what gives
// way first when the machine is short of CPU.
import Foundation

/// What a node's work serves. Declared by a kind (``Node/priority``), overridable per node in
/// a config (`priority: take|preview`), and otherwise inherited from the node's consumers: a
/// node feeding anything of the take is part of the take.
///
/// | | `take` | `preview` |
/// |---|---|---|
/// | live edges into the node | deep (``RunOptions/liveTakeQueueCapacity``): they ride out an encoder's start or a burst of load | shallow (``RunOptions/liveQueueCapacity``): the newest frame wins |
/// | thread | normal priority | nice +19: about 1.5 % of the CPU weight of a normal thread, so the take (and the rest of the machine) comes first; on a machine with headroom the preview still gets every idle cycle |
/// | drops | reported as lost from the take | reported as shed by previews |
public enum NodePriority: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The recording and everything that feeds it: never dropped while the machine can sustain it.
    case take
    /// Previews and viewers: yield first under load.
    case preview

    public var description: String { rawValue }

    /// The niceness a node thread of this priority runs at (Linux `setpriority`).
    public var threadNiceness: Int32 { self == .take ? 0 : 19 }

    /// The calling thread's kernel thread ID (Linux: from `/proc/thread-self`), or `nil` elsewhere.
    static func currentThreadID() -> Int32? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else { return nil }
        return link.split(separator: "/").last.flatMap { Int32($0) }
    }

    /// The calling thread's niceness (0 on systems without per-thread niceness): what a node's
    /// thread runs at, for diagnostics and tests.
    public static var currentThreadNiceness: Int32 {
        #if os(Linux)
        guard let tid = currentThreadID() else { return 0 }
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid))
        #else
        return 0
        #endif
    }
}
