import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts `program` with `arguments` (the first is the child's `argv[0]`) and the file actions
/// `actions`, with the default signal mask and dispositions (a child spawned from a dispatch
/// worker thread would otherwise inherit blocked signals). Shared by ``Subprocess`` and
/// ``LineSession``.
///
/// With `closesOtherDescriptors`, the child keeps only its standard input, output and error
/// (glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`; elsewhere it inherits what is not
/// close-on-exec): a child that outlives the call must not hold the parent's files open (one
/// that kept a script's write descriptor made every later exec of it fail with `ETXTBSY`).
///
/// - Returns: The child's pid.
/// - Throws: `POSIXError` with `posix_spawn`'s error.
func spawn(
    _ program: String, arguments: [String], environment: [String: String]?,
    actions: inout posix_spawn_file_actions_t, closesOtherDescriptors: Bool = false
) throws -> pid_t {
    if closesOtherDescriptors, let closeFrom = addCloseFrom {
        _ = closeFrom(&actions, 3)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGTERM, SIGINT, SIGCHLD] {
        sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argumentStrings = arguments.map { strdup($0) } + [nil]
    let environmentStrings =
        (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argumentStrings.forEach { free($0) }
        environmentStrings.forEach { free($0) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, &attributes, argumentStrings, environmentStrings)
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    return pid
}

/// `posix_spawn_file_actions_addclosefrom_np`, where the C library has it (looked up, so that
/// the package still builds against an older glibc).
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    #if os(Linux)
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return nil
    }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    #else
    return nil
    #endif
}()
