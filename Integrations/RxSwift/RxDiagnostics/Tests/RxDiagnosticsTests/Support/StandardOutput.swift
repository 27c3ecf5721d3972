import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Captures what the process writes to standard output, to check what RxSwift's debug
/// checks print (RxSwift's `SynchronizationTracker` reports with `print`) without letting
/// it into the test runner's output. Only the serialized suites use it.
enum StandardOutput {
    /// Runs `body` with file descriptor 1 redirected to a temporary file; returns the text.
    static func capture(_ body: () -> Void) -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rx-diagnostics-stdout-\(UUID().uuidString).txt")
        fflush(nil)
        let file = open(url.path, O_CREAT | O_TRUNC | O_RDWR, 0o600)
        let saved = dup(STDOUT_FILENO)
        guard file >= 0, saved >= 0 else {
            body()
            return ""
        }
        dup2(file, STDOUT_FILENO)
        body()
        fflush(nil)
        dup2(saved, STDOUT_FILENO)
        close(saved)
        close(file)
        let data = (try? Data(contentsOf: url)) ?? Data()
        try? FileManager.default.removeItem(at: url)
        return String(decoding: data, as: UTF8.self)
    }
}

extension StandardOutput {
    /// Runs `body` with file descriptor 1 sent to `/dev/null` (RxSwift's debug warnings by the
    /// thousand, in stress tests).
    static func discard(_ body: () -> Void) {
        fflush(nil)
        let null = open("/dev/null", O_WRONLY)
        let saved = dup(STDOUT_FILENO)
        guard null >= 0, saved >= 0 else {
            body()
            return
        }
        dup2(null, STDOUT_FILENO)
        body()
        fflush(nil)
        dup2(saved, STDOUT_FILENO)
        close(saved)
        close(null)
    }
}
