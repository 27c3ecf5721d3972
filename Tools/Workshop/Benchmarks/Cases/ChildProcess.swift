import Foundation

/// Runs a child process of the suite benchmarks to its end, its output discarded: one child at
/// a time, so Foundation's `Process` is reliable enough here. Its peak memory comes from the
/// `peak-rss` helper built beside this executable.
enum ChildProcess {
    /// What a finished child left.
    struct Result {
        /// The exit status (128 + the signal that ended it; -1 when it could not start).
        var status: Int32
        /// Its peak resident memory in bytes, when measured; 0 otherwise.
        var peakResidentBytes: Int
        /// The CPU time it used (user + system) in seconds, when measured with its memory; 0
        /// otherwise.
        var cpuSeconds: Double = 0
    }

    /// Runs `executable` with `arguments`, killed after `timeout` seconds.
    static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil, timeout: Double,
        measuresPeakMemory: Bool = false
    ) -> Result {
        let peakFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("rd-peak-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: peakFile) }
        let process = Process()
        if measuresPeakMemory, let helper = peakHelper {
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = [peakFile, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if let environment {
            process.environment = environment
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return Result(status: -1, peakResidentBytes: 0)
        }
        let timer = DispatchWorkItem { [process] in process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        process.waitUntilExit()
        timer.cancel()
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        // `peak-rss` writes the peak in bytes, then the CPU time in microseconds.
        let lines = ((try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? "").split(separator: "\n")
        let peak = lines.first.flatMap { Int($0) } ?? 0
        let cpu = lines.dropFirst().first.flatMap { Double($0) } ?? 0
        return Result(status: status, peakResidentBytes: peak, cpuSeconds: cpu / 1e6)
    }

    /// `peak-rss`, next to this executable (the workshop package builds both).
    static let peakHelper: String? = {
        guard let directory = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        let helper = directory.appendingPathComponent("peak-rss").path
        return FileManager.default.isExecutableFile(atPath: helper) ? helper : nil
    }()
}
