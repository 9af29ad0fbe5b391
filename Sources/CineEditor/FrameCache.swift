// FrameCache: the last frames used, by index, up to a count — the oldest used goes first.

/// A least-recently-used cache of frames by index.
struct FrameCache<Value> {
    private var values: [Int: Value] = [:]
    private var order: [Int] = []
    /// How many frames it keeps.
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The frame at `index`, marked as just used.
    mutating func get(_ index: Int) -> Value? {
        guard let v = values[index] else { return nil }
        if let k = order.lastIndex(of: index) { order.remove(at: k) }
        order.append(index)
        return v
    }

    /// Keeps `value` for `index`, dropping the least recently used beyond the capacity.
    mutating func put(_ index: Int, _ value: Value) {
        if values.updateValue(value, forKey: index) != nil, let k = order.lastIndex(of: index) { order.remove(at: k) }
        order.append(index)
        while order.count > capacity { values[order.removeFirst()] = nil }
    }
}
