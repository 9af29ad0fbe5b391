// InferenceModel: one .tflite model compiled by LiteRT for the CPU (XNNPACK, N threads), with
// its float32 input and output tensors in 64-byte aligned host memory that the caller fills and
// reads in place — no copy on the way in or out. Knows no model: shapes come from the file.
import Foundation

/// A compiled `.tflite` model with float32 inputs and outputs.
///
/// ```swift
/// let model = try InferenceModel(file: try ModelFiles.resolve("face_detection_short_range.tflite"))
/// model.input(0)[0] = …            // 1×128×128×3
/// try model.run()
/// let scores = model.output(1)    // 1×896×1
/// ```
/// Not thread-safe: one caller at a time (a node owns its model).
public final class InferenceModel: @unchecked Sendable {
    /// The model file.
    public let file: String
    /// Dimensions of each input tensor, in the signature's order.
    public let inputShapes: [[Int]]
    /// Dimensions of each output tensor, in the signature's order.
    public let outputShapes: [[Int]]

    private let r: Resources

    /// Every LiteRT object and buffer of one model, released together (also when loading fails
    /// half-way).
    private final class Resources {
        let lib: LiteRTLibrary
        var environment: LiteRtHandle?
        var model: LiteRtHandle?
        var compiled: LiteRtHandle?
        var inputBuffers: [LiteRtHandle?] = []
        var outputBuffers: [LiteRtHandle?] = []
        var memory: [UnsafeMutableRawPointer] = []
        var inputMemory: [UnsafeMutableBufferPointer<Float>] = []
        var outputMemory: [UnsafeMutableBufferPointer<Float>] = []
        init(lib: LiteRTLibrary) { self.lib = lib }
        deinit {
            for b in inputBuffers + outputBuffers { lib.destroyTensorBuffer(b) }
            if compiled != nil { lib.destroyCompiledModel(compiled) }
            if model != nil { lib.destroyModel(model) }
            if environment != nil { lib.destroyEnvironment(environment) }
            for m in memory { m.deallocate() }
        }
    }

    /// Loads and compiles `file` for `threads` CPU threads. Throws ``InferenceError`` naming
    /// the file: LiteRT missing (with how to install it), not a model, a non-float32 tensor.
    public init(file: String, threads: Int = 1) throws {
        self.file = file
        let lib = try LiteRTLibrary.shared()
        let r = Resources(lib: lib)
        var inShapes: [[Int]] = [], outShapes: [[Int]] = []
        func check(_ status: LiteRtStatus, _ what: String) throws {
            guard status == 0 else { throw InferenceError(file: file, message: "\(what): \(LiteRTLibrary.describe(status))") }
        }
        // Environment: only the CPU accelerator, and errors only on stderr (options 25 and 24).
        var options = [UInt8](repeating: 0, count: 48)
        options.withUnsafeMutableBytes { raw in
            for (k, (tag, value)) in [(Int32(25), Int64(3)), (Int32(24), Int64(1))].enumerated() {
                raw.storeBytes(of: tag, toByteOffset: 24 * k, as: Int32.self)
                raw.storeBytes(of: Int32(2), toByteOffset: 24 * k + 8, as: Int32.self)  // LiteRtAny: int
                raw.storeBytes(of: value, toByteOffset: 24 * k + 16, as: Int64.self)
            }
        }
        try check(options.withUnsafeBytes { lib.createEnvironment(2, $0.baseAddress, &r.environment) }, "LiteRT environment")
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw InferenceError(file: file, message: "no such model file; \(ModelFiles.installHint)")
        }
        try check(lib.createModelFromFile(r.environment, file, &r.model), "not a LiteRT model")
        var signature: LiteRtHandle?
        try check(lib.getModelSignature(r.model, 0, &signature), "no signature")
        var nIn = 0, nOut = 0
        try check(lib.getNumSignatureInputs(signature, &nIn), "inputs")
        try check(lib.getNumSignatureOutputs(signature, &nOut), "outputs")
        var types: [(input: Bool, index: Int, type: [UInt8])] = []
        for (isInput, count) in [(true, nIn), (false, nOut)] {
            let role = isInput ? "input" : "output"
            for i in 0..<count {
                var tensor: LiteRtHandle?
                let get = isInput ? lib.getSignatureInputTensorByIndex : lib.getSignatureOutputTensorByIndex
                try check(get(signature, i, &tensor), "\(role) \(i)")
                var type = [UInt8](repeating: 0, count: 72)  // LiteRtRankedTensorType
                try check(type.withUnsafeMutableBytes { lib.getRankedTensorType(tensor, $0.baseAddress!) }, "\(role) \(i) type")
                let (element, dims) = type.withUnsafeBytes { raw -> (Int32, [Int]) in
                    let rank = Int(raw.load(fromByteOffset: 4, as: UInt32.self) & 0x7F)
                    let dims = (0..<min(rank, 8)).map { Int(raw.load(fromByteOffset: 8 + 4 * $0, as: Int32.self)) }
                    return (raw.load(as: Int32.self), dims)
                }
                guard element == 1 else {
                    throw InferenceError(file: file, message: "\(role) \(i) is not float32 (element type \(element))")
                }
                guard dims.allSatisfy({ $0 > 0 }) else {
                    throw InferenceError(file: file, message: "\(role) \(i) has a dynamic shape \(dims)")
                }
                if isInput { inShapes.append(dims) } else { outShapes.append(dims) }
                types.append((isInput, i, type))
            }
        }
        // Compile for the CPU with XNNPACK's thread count (an opaque "xnnpack" option in 2.3.0).
        var compileOptions: LiteRtHandle?
        try check(lib.createOptions(&compileOptions), "options")
        defer { lib.destroyOptions(compileOptions) }
        try check(lib.setOptionsHardwareAccelerators(compileOptions, 1), "CPU accelerator")
        var opaque: LiteRtHandle?
        try check(lib.createOpaqueOptions("xnnpack", strdup("num_threads = \(max(1, threads))\n"), { free($0) }, &opaque),
                  "XNNPACK options")
        try check(lib.addOpaqueOptions(compileOptions, opaque), "XNNPACK options")
        try check(
            LibraryChatter.quieted { lib.createCompiledModel(r.environment, r.model, compileOptions, &r.compiled) }, "compiling")
        // One 64-byte aligned host buffer per tensor, wrapped without copying.
        for t in types {
            var requirements: LiteRtHandle?
            let get = t.input ? lib.getInputBufferRequirements : lib.getOutputBufferRequirements
            try check(get(r.compiled, 0, t.index, &requirements), "buffer requirements")
            var size = 0
            try check(lib.getRequirementsBufferSize(requirements, &size), "buffer size")
            let floats = (t.input ? inShapes[t.index] : outShapes[t.index]).reduce(1, *)
            let bytes = max(size, floats * 4)
            let base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            r.memory.append(base)
            var buffer: LiteRtHandle?
            try check(t.type.withUnsafeBytes { lib.createTensorBufferFromHostMemory($0.baseAddress!, base, bytes, nil, &buffer) },
                      "tensor buffer")
            let view = UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: floats)
            if t.input {
                r.inputBuffers.append(buffer)
                r.inputMemory.append(view)
            } else {
                r.outputBuffers.append(buffer)
                r.outputMemory.append(view)
            }
        }
        self.r = r
        inputShapes = inShapes
        outputShapes = outShapes
    }

    /// Input tensor `i`, to fill before ``run()``.
    public func input(_ i: Int) -> UnsafeMutableBufferPointer<Float> { r.inputMemory[i] }

    /// Output tensor `i`, valid after ``run()`` until the next run.
    public func output(_ i: Int) -> UnsafeBufferPointer<Float> { UnsafeBufferPointer(r.outputMemory[i]) }

    /// Runs the model on the inputs as they are now.
    public func run() throws {
        let status = r.inputBuffers.withUnsafeMutableBufferPointer { inputs in
            r.outputBuffers.withUnsafeMutableBufferPointer { outputs in
                r.lib.runCompiledModel(r.compiled, 0, inputs.count, inputs.baseAddress!, outputs.count, outputs.baseAddress!)
            }
        }
        guard status == 0 else { throw InferenceError(file: file, message: "run failed: \(LiteRTLibrary.describe(status))") }
    }
}
