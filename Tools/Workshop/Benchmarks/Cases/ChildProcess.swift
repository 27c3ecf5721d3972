import Foundation

/// Runs a child process of the suite benchmarks to its end, its output discarded (or its
/// standard output kept in a file), timed to the microsecond. Its peak memory comes from the `peak-rss` helper built beside this
/// executable.
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

    /// Runs `executable` with `arguments`, killed after `timeout` seconds; its standard output
    /// goes to `standardOutput` when given (a file created or truncated), else to `/dev/null`.
    ///
    /// Started with `posix_spawn` and reaped with `waitpid`: Foundation's
    /// `Process.waitUntilExit` on Linux polls its run loop every 50 ms, which added up to 50 ms
    /// to each child of a suite that runs in 50 (the suite rows' ratios read 1.0–1.3 whatever
    /// the suites did).
    static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil, timeout: Double,
        measuresPeakMemory: Bool = false, standardOutput: String? = nil
    ) -> Result {
        let peakFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("rd-peak-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: peakFile) }
        var argv = [executable] + arguments
        if measuresPeakMemory, let helper = peakHelper {
            argv = [helper, peakFile] + argv
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(
            &actions, 1, standardOutput ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argumentStrings = argv.map { strdup($0) } + [nil]
        let environmentStrings =
            (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argumentStrings.forEach { free($0) }
            environmentStrings.forEach { free($0) }
        }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, argumentStrings, environmentStrings) == 0 else {
            return Result(status: -1, peakResidentBytes: 0)
        }
        let child = pid
        let timer = DispatchWorkItem { kill(child, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        var raw: Int32 = 0
        while waitpid(child, &raw, 0) < 0 && errno == EINTR {}
        timer.cancel()
        // WIFSIGNALED, WTERMSIG and WEXITSTATUS, spelled out (they are C macros).
        let signal = raw & 0x7f
        let status = signal != 0 && signal != 0x7f ? 128 + signal : (raw >> 8) & 0xff
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
