import Foundation

/// The human-readable table.
public enum BenchmarkTable {
    /// A figure with the digits that matter.
    public static func format(_ value: Double) -> String {
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.3f", value)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// One line per result: name, median, spread, target, verdict and, for a ratio measured
    /// more often than the others (its median was slow to settle), how many samples.
    public static func render(_ results: [BenchmarkResult], repetitions: Int) -> String {
        var lines: [String] = []
        for result in results {
            let stats = result.statistics
            let target = result.target.map { "\($0.comparison) \(format($0.limit))" } ?? ""
            let verdict = result.met.map { $0 ? "met" : "MISSED" } ?? ""
            let samples =
                result.target != nil && stats.samples.count > repetitions ? "  (\(stats.samples.count) samples)" : ""
            lines.append(
                pad(result.name, 44) + pad("\(format(stats.median)) \(result.unit)", 22)
                    + pad("±\(String(format: "%.1f", stats.spreadPercent))%", 9) + pad(target, 10) + verdict + samples)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The closing line: targets met, time taken, where the JSON went.
    public static func summary(results: [BenchmarkResult], seconds: Double, json: String) -> String {
        let targeted = results.filter { $0.target != nil }
        let met = targeted.filter { $0.met == true }.count
        return "\n\(met) of \(targeted.count) targets met in \(String(format: "%.0f", seconds)) s; results: \(json)"
    }
}

/// What machine the figures come from.
public enum Machine {
    /// CPU, cores, memory and system.
    public static var description: String {
        var cpu = "unknown CPU"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let name = line.split(separator: ":", maxSplits: 1).last
        {
            cpu = name.trimmingCharacters(in: .whitespaces)
        }
        let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
        return
            "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }

    /// The Swift toolchain that built the benchmark.
    public static var toolchain: String {
        #if compiler(>=6.3)
        return "Swift 6.3"
        #else
        return "Swift 6.x"
        #endif
    }
}
