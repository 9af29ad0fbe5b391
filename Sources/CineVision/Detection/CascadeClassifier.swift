// CascadeClassifier: an OpenCV boosted cascade (Haar or LBP) read from its XML file, in the
// new (`opencv-cascade-classifier`) or the old (`opencv-haar-classifier`) format, flattened
// into arrays for the detector's inner loop.
import Foundation

/// A boosted cascade of weak classifiers over Haar-like or LBP features, as trained by OpenCV.
///
/// Load one with ``init(contentsOf:)`` (any path; the standard ones are in
/// `/usr/share/opencv4/haarcascades` and `lbpcascades`) and run it with ``CascadeDetector``.
/// Stump-based and tree-based stages, tilted (45°) Haar features and LBP categorical stumps are
/// supported. Values are stored the way OpenCV stores them (float thresholds, stage thresholds
/// lowered by 1e-5), so decisions match OpenCV's `CascadeClassifier`.
public struct CascadeClassifier: Sendable {
    /// The feature family a cascade uses.
    public enum FeatureKind: String, Sendable {
        /// Haar-like rectangle features (upright and tilted), variance-normalised.
        case haar
        /// Multi-block local binary patterns (8-bit codes, categorical splits).
        case lbp
    }

    /// The file the cascade was read from (or the name given to ``init(xml:name:)``).
    public let source: String
    /// Feature family.
    public let featureKind: FeatureKind
    /// Training window width in pixels: the smallest object found at scale 1.
    public let windowWidth: Int
    /// Training window height in pixels.
    public let windowHeight: Int
    /// Whether any Haar feature is tilted (needs the rotated integral image).
    public let hasTiltedFeatures: Bool

    // Flattened model. Stage s covers weak classifiers stageFirstWeak[s] ..< stageFirstWeak[s] + stageWeakCount[s].
    let stageThreshold: [Float]
    let stageFirstWeak: [Int32]
    let stageWeakCount: [Int32]
    // Weak classifier w: nodes weakFirstNode[w] ..< +weakNodeCount[w]; leaves weakFirstLeaf[w] ...
    let weakFirstNode: [Int32]
    let weakNodeCount: [Int32]
    let weakFirstLeaf: [Int32]
    // Node n: feature, threshold (Haar) or 8-word subset (LBP, in nodeSubset[8n ..< 8n+8]), children (> 0 node, ≤ 0 −leaf).
    let nodeFeature: [Int32]
    let nodeThreshold: [Float]
    let nodeLeft: [Int32]
    let nodeRight: [Int32]
    let nodeSubset: [Int32]
    let leaves: [Float]
    /// Whether every weak classifier is a single node (the fast path).
    let isStumpBased: Bool
    // Features: Haar — up to 3 rectangles (x, y, w, h) with weights; LBP — one block rectangle in haarRects[4f ..< 4f+4].
    let featureRects: [Int32]   // 12 per Haar feature, 4 per LBP feature
    let featureWeights: [Float] // 3 per Haar feature
    let featureTilted: [Bool]

    /// Number of stages.
    public var stageCount: Int { stageThreshold.count }
    /// Number of features.
    public var featureCount: Int { featureTilted.count }

    /// Reads a cascade file.
    /// - Throws: ``CascadeError`` naming the file, line and element when the file cannot be read,
    ///   is not well-formed XML, or is not a cascade this reader supports.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CascadeError(file: path, "cannot read the file (missing or not readable)")
        }
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw CascadeError(file: path, "not a text file")
        }
        try self.init(xml: text, name: path)
    }

    /// Parses cascade XML text; `name` stands for the file in errors.
    public init(xml text: String, name: String = "<memory>") throws {
        let root = try CascadeXMLElement.parse(text, file: name)
        var b = Builder(file: name)
        let node: CascadeXMLElement
        if root.name == "opencv_storage" {
            guard let first = root.children.first else {
                throw b.error(root, "the file holds no cascade (empty <opencv_storage>)")
            }
            node = first
        } else {
            node = root
        }
        if node.child("stageType") != nil || node.attributes["type_id"] == "opencv-cascade-classifier" {
            try b.readNewFormat(node)
        } else if node.child("stages") != nil, node.child("size") != nil {
            try b.readOldFormat(node)
        } else {
            throw b.error(node, "not an OpenCV cascade: expected <stageType> (new format) or <size> and <stages> (old format)")
        }
        try b.validate()
        source = name
        featureKind = b.kind
        windowWidth = b.width
        windowHeight = b.height
        hasTiltedFeatures = b.featureTilted.contains(true)
        stageThreshold = b.stageThreshold
        stageFirstWeak = b.stageFirstWeak
        stageWeakCount = b.stageWeakCount
        weakFirstNode = b.weakFirstNode
        weakNodeCount = b.weakNodeCount
        weakFirstLeaf = b.weakFirstLeaf
        nodeFeature = b.nodeFeature
        nodeThreshold = b.nodeThreshold
        nodeLeft = b.nodeLeft
        nodeRight = b.nodeRight
        nodeSubset = b.nodeSubset
        leaves = b.leaves
        isStumpBased = b.weakNodeCount.allSatisfy { $0 == 1 }
        featureRects = b.featureRects
        featureWeights = b.featureWeights
        featureTilted = b.featureTilted
    }

    /// Accumulates the flattened model while reading either format.
    private struct Builder {
        let file: String
        var kind = FeatureKind.haar
        var width = 0, height = 0
        var stageThreshold: [Float] = [], stageFirstWeak: [Int32] = [], stageWeakCount: [Int32] = []
        var weakFirstNode: [Int32] = [], weakNodeCount: [Int32] = [], weakFirstLeaf: [Int32] = []
        var nodeFeature: [Int32] = [], nodeThreshold: [Float] = [], nodeLeft: [Int32] = [], nodeRight: [Int32] = []
        var nodeSubset: [Int32] = [], leaves: [Float] = []
        var featureRects: [Int32] = [], featureWeights: [Float] = [], featureTilted: [Bool] = []
        var lastElement: CascadeXMLElement?

        init(file: String) { self.file = file }

        func error(_ e: CascadeXMLElement, _ message: String) -> CascadeError {
            CascadeError(file: file, line: e.line, element: e.path, message)
        }

        func require(_ parent: CascadeXMLElement, _ name: String) throws -> CascadeXMLElement {
            guard let c = parent.child(name) else { throw error(parent, "missing <\(name)>") }
            return c
        }

        /// The whitespace-separated numbers of `e`'s text, split on its UTF-8 bytes (splitting
        /// Characters cost half of a cascade's load time).
        func numbers(_ e: CascadeXMLElement) throws -> [Double] {
            var out: [Double] = []
            let bytes = Array(e.text.utf8)
            var i = 0
            while i < bytes.count {
                while i < bytes.count, bytes[i] <= 0x20 { i += 1 }
                let start = i
                while i < bytes.count, bytes[i] > 0x20 { i += 1 }
                guard i > start else { break }
                let token = String(decoding: bytes[start..<i], as: UTF8.self)
                guard let v = Double(token) else { throw error(e, "'\(token)' is not a number") }
                out.append(v)
            }
            return out
        }

        func int(_ e: CascadeXMLElement) throws -> Int {
            let n = try numbers(e)
            guard n.count == 1, let v = Int(exactly: n[0]) else { throw error(e, "expected one integer, got '\(e.text.trimmingCharacters(in: .whitespacesAndNewlines))'") }
            return v
        }

        func number(_ e: CascadeXMLElement) throws -> Double {
            let n = try numbers(e)
            guard n.count == 1 else { throw error(e, "expected one number") }
            return n[0]
        }

        /// `<cascade>` with stageType BOOST, featureType HAAR or LBP, stages of weakClassifiers and features.
        mutating func readNewFormat(_ c: CascadeXMLElement) throws {
            let stageType = try require(c, "stageType")
            guard stageType.text.trimmingCharacters(in: .whitespacesAndNewlines) == "BOOST" else {
                throw error(stageType, "unsupported stage type '\(stageType.text)'; only BOOST is supported")
            }
            let ft = try require(c, "featureType")
            switch ft.text.trimmingCharacters(in: .whitespacesAndNewlines) {
            case "HAAR": kind = .haar
            case "LBP": kind = .lbp
            case let other: throw error(ft, "unsupported feature type '\(other)'; supported: HAAR, LBP (HOG cascades are not)")
            }
            width = try int(require(c, "width"))
            height = try int(require(c, "height"))
            let stages = try require(c, "stages")
            guard !stages.children.isEmpty else { throw error(stages, "no stages") }
            for s in stages.children {
                let thr = try number(require(s, "stageThreshold"))
                stageThreshold.append(Float(thr) - 1e-5)
                stageFirstWeak.append(Int32(weakFirstNode.count))
                let weak = try require(s, "weakClassifiers")
                guard !weak.children.isEmpty else { throw error(weak, "a stage without weak classifiers") }
                stageWeakCount.append(Int32(weak.children.count))
                for w in weak.children {
                    let inodes = try require(w, "internalNodes")
                    let vals = try numbers(inodes)
                    let per = kind == .lbp ? 11 : 4
                    guard !vals.isEmpty, vals.count % per == 0 else {
                        throw error(inodes, "expected groups of \(per) numbers (left right feature \(kind == .lbp ? "subset×8" : "threshold")), got \(vals.count)")
                    }
                    let count = vals.count / per
                    let lv = try require(w, "leafValues")
                    let leafVals = try numbers(lv)
                    guard leafVals.count == count + 1 else {
                        throw error(lv, "expected \(count + 1) leaf values for \(count) node(s), got \(leafVals.count)")
                    }
                    weakFirstNode.append(Int32(nodeFeature.count))
                    weakNodeCount.append(Int32(count))
                    weakFirstLeaf.append(Int32(leaves.count))
                    for n in 0..<count {
                        let g = Array(vals[(n * per)..<(n * per + per)])
                        guard let l = Int32(exactly: g[0]), let r = Int32(exactly: g[1]), let f = Int32(exactly: g[2]),
                              l < Int32(count), r < Int32(count), l >= -Int32(count), r >= -Int32(count)
                        else { throw error(inodes, "node \(n): child or feature index out of range") }
                        nodeLeft.append(l)
                        nodeRight.append(r)
                        nodeFeature.append(f)
                        if kind == .lbp {
                            nodeThreshold.append(0)
                            for k in 0..<8 {
                                guard let v = Int64(exactly: g[3 + k]), v >= Int64(Int32.min), v <= Int64(UInt32.max) else {
                                    throw error(inodes, "node \(n): subset word '\(g[3 + k])' is not a 32-bit integer")
                                }
                                nodeSubset.append(Int32(truncatingIfNeeded: v))
                            }
                        } else {
                            nodeThreshold.append(Float(g[3]))
                        }
                    }
                    leaves.append(contentsOf: leafVals.map { Float($0) })
                }
            }
            let features = try require(c, "features")
            for f in features.children {
                if kind == .lbp {
                    let r = try require(f, "rect")
                    let v = try numbers(r)
                    guard v.count == 4 else { throw error(r, "an LBP rect needs 4 numbers (x y w h), got \(v.count)") }
                    featureRects.append(contentsOf: v.map { Int32($0) })
                    featureTilted.append(false)
                } else {
                    try readHaarFeature(f)
                }
            }
        }

        /// Reads `<rects>` (1…3 of `x y w h weight`) and `<tilted>`.
        mutating func readHaarFeature(_ f: CascadeXMLElement) throws {
            let rects = try require(f, "rects")
            guard (1...3).contains(rects.children.count) else {
                throw error(rects, "a Haar feature has 1 to 3 rectangles, got \(rects.children.count)")
            }
            var r = [Int32](repeating: 0, count: 12)
            var w = [Float](repeating: 0, count: 3)
            for (k, e) in rects.children.enumerated() {
                let v = try numbers(e)
                guard v.count == 5 else { throw error(e, "a rectangle needs 5 numbers (x y w h weight), got \(v.count)") }
                for j in 0..<4 {
                    guard let iv = Int32(exactly: v[j]) else { throw error(e, "'\(v[j])' is not an integer") }
                    r[4 * k + j] = iv
                }
                w[k] = Float(v[4])
            }
            featureRects.append(contentsOf: r)
            featureWeights.append(contentsOf: w)
            featureTilted.append(try f.child("tilted").map { try int($0) != 0 } ?? false)
        }

        /// The pre-2.0 Haar format: `<size>`, `<stages>` of `<trees>` of nodes with inline features,
        /// `left_val`/`left_node`, `right_val`/`right_node`, `<stage_threshold>`.
        mutating func readOldFormat(_ c: CascadeXMLElement) throws {
            kind = .haar
            let size = try require(c, "size")
            let wh = try numbers(size)
            guard wh.count == 2, let w = Int(exactly: wh[0]), let h = Int(exactly: wh[1]) else {
                throw error(size, "expected 'width height'")
            }
            width = w
            height = h
            let stages = try require(c, "stages")
            guard !stages.children.isEmpty else { throw error(stages, "no stages") }
            for s in stages.children {
                if let p = s.child("parent"), try int(p) != stageThreshold.count - 1 {
                    throw error(p, "tree-structured cascades (parent/next links) are not supported; only a linear chain")
                }
                stageThreshold.append(Float(try number(require(s, "stage_threshold"))) - 1e-5)
                stageFirstWeak.append(Int32(weakFirstNode.count))
                let trees = try require(s, "trees")
                guard !trees.children.isEmpty else { throw error(trees, "a stage without trees") }
                stageWeakCount.append(Int32(trees.children.count))
                for t in trees.children {
                    let nodes = t.children
                    guard !nodes.isEmpty else { throw error(t, "an empty tree") }
                    weakFirstNode.append(Int32(nodeFeature.count))
                    weakNodeCount.append(Int32(nodes.count))
                    weakFirstLeaf.append(Int32(leaves.count))
                    var leafCount: Int32 = 0
                    for n in nodes {
                        try readHaarFeature(require(n, "feature"))
                        nodeFeature.append(Int32(featureTilted.count - 1))
                        nodeThreshold.append(Float(try number(require(n, "threshold"))))
                        for side in ["left", "right"] {
                            let child: Int32
                            if let v = n.child("\(side)_val") {
                                leaves.append(Float(try number(v)))
                                child = -leafCount
                                leafCount += 1
                            } else if let k = n.child("\(side)_node") {
                                let idx = try int(k)
                                guard idx > 0, idx < nodes.count else { throw error(k, "node index \(idx) out of range") }
                                child = Int32(idx)
                            } else {
                                throw error(n, "missing <\(side)_val> or <\(side)_node>")
                            }
                            if side == "left" { nodeLeft.append(child) } else { nodeRight.append(child) }
                        }
                    }
                    guard leafCount == Int32(nodes.count) + 1 else {
                        throw error(t, "a tree of \(nodes.count) nodes needs \(nodes.count + 1) leaves, got \(leafCount)")
                    }
                }
            }
        }

        /// Checks sizes and that every feature lies inside the window (the detector reads the
        /// integral image without bounds checks).
        func validate() throws {
            guard width > 0, height > 0, width <= 1024, height <= 1024 else {
                throw CascadeError(file: file, element: "width/height", "window size \(width)x\(height) is not usable")
            }
            let nf = Int32(featureTilted.count)
            for (n, f) in nodeFeature.enumerated() where f < 0 || f >= nf {
                throw CascadeError(file: file, element: "internalNodes", "node \(n) uses feature \(f) but there are \(nf) features")
            }
            for f in 0..<featureTilted.count {
                if kind == .lbp {
                    let x = featureRects[4 * f], y = featureRects[4 * f + 1], w = featureRects[4 * f + 2], h = featureRects[4 * f + 3]
                    guard x >= 0, y >= 0, w > 0, h > 0, x + 3 * w <= width, y + 3 * h <= height else {
                        throw CascadeError(file: file, element: "features/_[\(f)]/rect", "block grid \(w)x\(h)+\(x)+\(y) ×3 leaves the \(width)x\(height) window")
                    }
                    continue
                }
                for k in 0..<3 where featureWeights[3 * f + k] != 0 || k == 0 {
                    let x = featureRects[12 * f + 4 * k], y = featureRects[12 * f + 4 * k + 1]
                    let w = featureRects[12 * f + 4 * k + 2], h = featureRects[12 * f + 4 * k + 3]
                    let ok = featureTilted[f]
                        ? x - h >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + w + h <= height
                        : x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height
                    guard ok else {
                        throw CascadeError(file: file, element: "features/_[\(f)]/rects/_[\(k)]",
                                           "\(featureTilted[f] ? "tilted " : "")rectangle \(w)x\(h)+\(x)+\(y) leaves the \(width)x\(height) window")
                    }
                }
            }
        }
    }
}
