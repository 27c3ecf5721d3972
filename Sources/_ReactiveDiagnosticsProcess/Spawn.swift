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
/// - Returns: The child's pid.
/// - Throws: `POSIXError` with `posix_spawn`'s error.
func spawn(
    _ program: String, arguments: [String], environment: [String: String]?,
    actions: inout posix_spawn_file_actions_t
) throws -> pid_t {
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
