// LiteRTLibrary: LiteRT's C API, loaded at run time (dlopen) from the library that
// scripts/fetch-models.sh puts in .models/ — so cinegraph builds and runs without it, and a
// missing library is one clear error. Declares only the functions cinegraph calls (2.3.0's
// prototypes: the model loaders take the environment first).
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

typealias LiteRtStatus = Int32
typealias LiteRtHandle = OpaquePointer

/// The LiteRT C functions cinegraph uses, resolved once per process.
final class LiteRTLibrary: @unchecked Sendable {
    typealias CreateEnvironment = @convention(c) (Int32, UnsafeRawPointer?, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias DestroyHandle = @convention(c) (LiteRtHandle?) -> Void
    typealias CreateModelFromFile = @convention(c) (LiteRtHandle?, UnsafePointer<CChar>, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias GetModelSignature = @convention(c) (LiteRtHandle?, Int, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias GetCount = @convention(c) (LiteRtHandle?, UnsafeMutablePointer<Int>) -> LiteRtStatus
    typealias GetTensorByIndex = @convention(c) (LiteRtHandle?, Int, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias GetRankedTensorType = @convention(c) (LiteRtHandle?, UnsafeMutableRawPointer) -> LiteRtStatus
    typealias CreateOptions = @convention(c) (UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias SetAccelerators = @convention(c) (LiteRtHandle?, Int32) -> LiteRtStatus
    typealias CreateOpaqueOptions = @convention(c) (
        UnsafePointer<CChar>, UnsafeMutableRawPointer?, (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
        UnsafeMutablePointer<LiteRtHandle?>
    ) -> LiteRtStatus
    typealias AddOpaqueOptions = @convention(c) (LiteRtHandle?, LiteRtHandle?) -> LiteRtStatus
    typealias CreateCompiledModel = @convention(c) (LiteRtHandle?, LiteRtHandle?, LiteRtHandle?, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias GetBufferRequirements = @convention(c) (LiteRtHandle?, Int, Int, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus
    typealias GetRequirementsSize = @convention(c) (LiteRtHandle?, UnsafeMutablePointer<Int>) -> LiteRtStatus
    typealias CreateBufferFromHostMemory = @convention(c) (
        UnsafeRawPointer, UnsafeMutableRawPointer, Int, (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
        UnsafeMutablePointer<LiteRtHandle?>
    ) -> LiteRtStatus
    typealias RunCompiledModel = @convention(c) (LiteRtHandle?, Int, Int, UnsafeMutablePointer<LiteRtHandle?>, Int, UnsafeMutablePointer<LiteRtHandle?>) -> LiteRtStatus

    let path: String
    let createEnvironment: CreateEnvironment
    let destroyEnvironment: DestroyHandle
    let createModelFromFile: CreateModelFromFile
    let destroyModel: DestroyHandle
    let getModelSignature: GetModelSignature
    let getNumSignatureInputs: GetCount
    let getNumSignatureOutputs: GetCount
    let getSignatureInputTensorByIndex: GetTensorByIndex
    let getSignatureOutputTensorByIndex: GetTensorByIndex
    let getRankedTensorType: GetRankedTensorType
    let createOptions: CreateOptions
    let destroyOptions: DestroyHandle
    let setOptionsHardwareAccelerators: SetAccelerators
    let createOpaqueOptions: CreateOpaqueOptions
    let addOpaqueOptions: AddOpaqueOptions
    let createCompiledModel: CreateCompiledModel
    let destroyCompiledModel: DestroyHandle
    let getInputBufferRequirements: GetBufferRequirements
    let getOutputBufferRequirements: GetBufferRequirements
    let getRequirementsBufferSize: GetRequirementsSize
    let createTensorBufferFromHostMemory: CreateBufferFromHostMemory
    let destroyTensorBuffer: DestroyHandle
    let runCompiledModel: RunCompiledModel

    private init(path: String, handle: UnsafeMutableRawPointer) throws {
        self.path = path
        func symbol<T>(_ name: String, _: T.Type) throws -> T {
            guard let p = dlsym(handle, name) else {
                throw InferenceError(file: path, message: "\(name) is missing: this is not LiteRT 2.3's libLiteRt.so")
            }
            return unsafeBitCast(p, to: T.self)
        }
        createEnvironment = try symbol("LiteRtCreateEnvironment", CreateEnvironment.self)
        destroyEnvironment = try symbol("LiteRtDestroyEnvironment", DestroyHandle.self)
        createModelFromFile = try symbol("LiteRtCreateModelFromFile", CreateModelFromFile.self)
        destroyModel = try symbol("LiteRtDestroyModel", DestroyHandle.self)
        getModelSignature = try symbol("LiteRtGetModelSignature", GetModelSignature.self)
        getNumSignatureInputs = try symbol("LiteRtGetNumSignatureInputs", GetCount.self)
        getNumSignatureOutputs = try symbol("LiteRtGetNumSignatureOutputs", GetCount.self)
        getSignatureInputTensorByIndex = try symbol("LiteRtGetSignatureInputTensorByIndex", GetTensorByIndex.self)
        getSignatureOutputTensorByIndex = try symbol("LiteRtGetSignatureOutputTensorByIndex", GetTensorByIndex.self)
        getRankedTensorType = try symbol("LiteRtGetRankedTensorType", GetRankedTensorType.self)
        createOptions = try symbol("LiteRtCreateOptions", CreateOptions.self)
        destroyOptions = try symbol("LiteRtDestroyOptions", DestroyHandle.self)
        setOptionsHardwareAccelerators = try symbol("LiteRtSetOptionsHardwareAccelerators", SetAccelerators.self)
        createOpaqueOptions = try symbol("LiteRtCreateOpaqueOptions", CreateOpaqueOptions.self)
        addOpaqueOptions = try symbol("LiteRtAddOpaqueOptions", AddOpaqueOptions.self)
        createCompiledModel = try symbol("LiteRtCreateCompiledModel", CreateCompiledModel.self)
        destroyCompiledModel = try symbol("LiteRtDestroyCompiledModel", DestroyHandle.self)
        getInputBufferRequirements = try symbol("LiteRtGetCompiledModelInputBufferRequirements", GetBufferRequirements.self)
        getOutputBufferRequirements = try symbol("LiteRtGetCompiledModelOutputBufferRequirements", GetBufferRequirements.self)
        getRequirementsBufferSize = try symbol("LiteRtGetTensorBufferRequirementsBufferSize", GetRequirementsSize.self)
        createTensorBufferFromHostMemory = try symbol("LiteRtCreateTensorBufferFromHostMemory", CreateBufferFromHostMemory.self)
        destroyTensorBuffer = try symbol("LiteRtDestroyTensorBuffer", DestroyHandle.self)
        runCompiledModel = try symbol("LiteRtRunCompiledModel", RunCompiledModel.self)
    }

    /// The library, loaded on first use from ``ModelFiles/resolve(_:)`` (`libLiteRt.so`).
    static func shared() throws -> LiteRTLibrary { try loaded.get() }

    private static let loaded: Result<LiteRTLibrary, InferenceError> = Result {
        let path: String
        do { path = try ModelFiles.resolve("libLiteRt.so") } catch let e as InferenceError { throw e }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw InferenceError(file: path, message: "cannot be loaded: \(reason)")
        }
        do { return try LiteRTLibrary(path: path, handle: handle) } catch let e as InferenceError { throw e }
    }.mapError { $0 as! InferenceError }

    /// A status as words (2.3.0 does not export its own table).
    static func describe(_ status: LiteRtStatus) -> String {
        let names: [Int32: String] = [
            1: "invalid argument", 2: "memory allocation failure", 3: "runtime failure", 4: "missing input tensor",
            5: "unsupported", 6: "not found", 7: "timeout", 8: "wrong version", 9: "unknown error",
            500: "file I/O error", 501: "invalid flatbuffer (not a .tflite model)", 502: "dynamic loading failed",
            504: "compilation failed",
        ]
        return "\(names[status] ?? "error") (LiteRT status \(status))"
    }
}
