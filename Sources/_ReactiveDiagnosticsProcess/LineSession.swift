import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A helper program kept running that answers each line written to it with one line: what
/// `llvm-symbolizer` does when its queries come on standard input (as the sanitizers use it).
/// Starting the program once and asking it many times costs one start-up (about 20 ms for
/// llvm-symbolizer, which also reads each image's debug information once) rather than one a
/// query.
///
/// Not API: this package's modules share it (the underscore says so).
///
/// - The child talks through a socket pair, closed on exec in this process's other children,
///   and written with `MSG_NOSIGNAL`: a child that died is a failed answer, never a `SIGPIPE`.
/// - The child keeps no other descriptor of this process (it may live as long as the process:
///   a file being written must not stay open in it).
/// - The child's standard error goes to `/dev/null`; it ends when this process ends (it reads
///   the end of its input) or when ``close()`` is called.
/// - A question that gets no whole line within its timeout, or a child that ends, closes the
///   session: ``ask(_:timeout:)`` returns `nil` from then on and the caller decides what to do.
/// - Calls are serialized; the session is meant for checkpoints, never for a hot path.
///
/// ```swift
/// let session = try LineSession("/usr/bin/llvm-symbolizer", arguments: ["--output-style=JSON"])
/// let answer = session.ask("CODE /bin/ls 0x1000", timeout: 30)
/// ```
public final class LineSession: @unchecked Sendable {
    private let lock = NSLock()
    private var pid: pid_t
    private var socket: Int32
    /// What the child wrote after the last whole line.
    private var pending: [UInt8] = []

    /// Starts `executable` with `arguments`.
    ///
    /// - Throws: `POSIXError` when the socket pair or the child cannot be made.
    public init(_ executable: String, arguments: [String], environment: [String: String]? = nil) throws {
        var sockets: [Int32] = [-1, -1]
        #if canImport(Darwin)
        guard socketpair(AF_UNIX, SOCK_STREAM, 0, &sockets) == 0 else { throw Self.lastError() }
        _ = fcntl(sockets[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(sockets[1], F_SETFD, FD_CLOEXEC)
        #else
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0
        else { throw Self.lastError() }
        #endif
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the child's 0 and 1.
        posix_spawn_file_actions_adddup2(&actions, sockets[1], 0)
        posix_spawn_file_actions_adddup2(&actions, sockets[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        defer { closeDescriptor(sockets[1]) }  // the child's end: it keeps its own copies
        do {
            pid = try spawn(
                executable, arguments: [executable] + arguments, environment: environment, actions: &actions,
                closesOtherDescriptors: true)
        } catch {
            closeDescriptor(sockets[0])
            throw error
        }
        socket = sockets[0]
    }

    deinit {
        closeLocked()
    }

    /// Whether the child is still there to answer.
    public var isOpen: Bool { lock.withLock { socket >= 0 } }

    /// Writes `question` and a newline; returns the line the child answers (without its
    /// newline), or `nil` when it does not answer within `timeout` seconds or is gone (the
    /// session is closed then).
    public func ask(_ question: String, timeout: Double) -> String? {
        lock.withLock {
            guard socket >= 0 else { return nil }
            guard write(Array((question + "\n").utf8)), let line = readLine(timeout: timeout) else {
                closeLocked()
                return nil
            }
            return line
        }
    }

    /// Ends the child (closing its input, then killing it) and reaps it.
    public func close() {
        lock.withLock { closeLocked() }
    }

    private func closeLocked() {
        guard socket >= 0 else { return }
        closeDescriptor(socket)
        socket = -1
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { sendWithoutSignal(socket, $0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    private func readLine(timeout: Double) -> String? {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return nil }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending += buffer[..<count]
        }
    }

    private static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}

/// `close(2)` (inside the class, `close` is ``LineSession/close()``).
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// `send(2)` without `SIGPIPE` when the other end is gone.
private func sendWithoutSignal(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if canImport(Darwin)
    var on: Int32 = 1
    _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    return send(descriptor, bytes.baseAddress, bytes.count, 0)
    #else
    return send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #endif
}
