#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes text: standard output, standard error, or a string in a test.
///
/// Sinks buffer; ``ReactiveDiag/run(arguments:stdout:stderr:environment:currentDirectory:)``
/// flushes them before it returns.
///
/// ```swift
/// let out = StringSink()
/// let code = ReactiveDiag.run(arguments: ["show", "report.json"], stdout: out, stderr: StringSink())
/// print(code, out.text)
/// ```
public protocol OutputSink: AnyObject {
    /// Appends text.
    func write(_ text: String)
    /// Writes out whatever is buffered.
    func flush()
    /// Whether the sink is an interactive terminal (decides `--color auto`).
    var isTerminal: Bool { get }
}

/// Collects everything written into ``text``; used by tests and by callers that post-process output.
///
/// ```swift
/// let sink = StringSink()
/// sink.write("hello\n")
/// assert(sink.text == "hello\n")
/// ```
public final class StringSink: OutputSink {
    /// Everything written so far.
    public private(set) var text = ""
    /// What ``isTerminal`` reports; `false` unless a test wants to pretend otherwise.
    public let isTerminal: Bool

    /// Creates an empty sink.
    public init(isTerminal: Bool = false) {
        self.isTerminal = isTerminal
    }

    /// Appends `text` to ``text``.
    public func write(_ text: String) {
        self.text += text
    }

    /// Does nothing: ``text`` is always up to date.
    public func flush() {}
}

/// Buffered writes to a file descriptor (1 for standard output, 2 for standard error).
///
/// Text is collected and written in 64 KiB chunks, so rendering 100,000 findings costs
/// a few hundred `write` calls, not one per line.
///
/// ```swift
/// let out = FileDescriptorSink(descriptor: 1)
/// out.write("report\n")
/// out.flush()
/// ```
public final class FileDescriptorSink: OutputSink {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private static let chunk = 1 << 16

    /// Creates a sink writing to `descriptor`.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.chunk)
    }

    deinit {
        flush()
    }

    /// Whether the descriptor is a terminal (`isatty`), which turns on colour under `--color auto`.
    public var isTerminal: Bool {
        isatty(descriptor) != 0
    }

    /// Buffers `text`, writing the buffer out once it holds 64 KiB.
    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunk {
            flush()
        }
    }

    /// Writes the buffer out, retrying interrupted writes; a reader that went away (`EPIPE`)
    /// drops the rest quietly, so `reactive-diag show … | head` ends cleanly.
    public func flush() {
        var offset = 0
        buffer.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 {
                    return  // EPIPE and friends: the reader is gone, drop the rest.
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    return write(descriptor, bytes, count)
    #else
    return -1
    #endif
}
