// CascadeModelBuffers: a cascade's flattened arrays copied once into stable memory, so the
// window evaluator can read them through plain pointers on any thread.

/// Stable, immutable copies of a ``CascadeClassifier``'s arrays (freed with the detector).
final class CascadeModelBuffers: @unchecked Sendable {
    let floats: [UnsafeMutableBufferPointer<Float>]
    let ints: [UnsafeMutableBufferPointer<Int32>]
    init(_ c: CascadeClassifier) {
        func f(_ a: [Float]) -> UnsafeMutableBufferPointer<Float> {
            let p = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, a.count))
            _ = p.initialize(from: a)
            return p
        }
        func i(_ a: [Int32]) -> UnsafeMutableBufferPointer<Int32> {
            let p = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, a.count))
            _ = p.initialize(from: a)
            return p
        }
        floats = [f(c.stageThreshold), f(c.nodeThreshold), f(c.leaves), f(c.featureWeights)]
        ints = [i(c.stageFirstWeak), i(c.stageWeakCount), i(c.weakFirstNode), i(c.weakFirstLeaf),
                i(c.nodeFeature), i(c.nodeLeft), i(c.nodeRight), i(c.nodeSubset)]
    }
    deinit {
        for p in floats { p.deallocate() }
        for p in ints { p.deallocate() }
    }
}

