// StereoSharedPointer: hands a raw pointer to the stereo kernels' concurrent row bands, which
// write disjoint rows of the memory it points to.

/// A pointer shared by the jobs of one `concurrentPerform`; each job touches its own rows.
struct StereoSharedPointer<Pointee>: @unchecked Sendable {
    /// The shared memory.
    let pointer: UnsafeMutablePointer<Pointee>
    /// Wraps `pointer`.
    init(_ pointer: UnsafeMutablePointer<Pointee>) { self.pointer = pointer }
    /// Wraps a read-only pointer (the kernels never write through it).
    init(_ pointer: UnsafePointer<Pointee>) { self.pointer = UnsafeMutablePointer(mutating: pointer) }
}
