import Foundation
import Testing

/// `peak-rss`, through which the suite benchmark reads a test process's peak memory: the
/// child's own, whatever the size of the process that started the helper.
@Suite struct PeakRSSTests {
    /// `dd` with a 64 MiB block allocates the block and reads into every page of it.
    private static let blockBytes = 64 << 20

    private static var helper: URL? {
        guard let products = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        let candidate = products.appendingPathComponent("peak-rss")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    @Test func aChildsPeakMemoryIsItsOwnNotItsParents() async throws {
        let helper = try #require(Self.helper, "peak-rss is built next to the test binary")
        // While this process has 256 MiB resident: wait4's ru_maxrss of a child it spawned
        // itself would say at least that much.
        let parent = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 20, alignment: 4096)
        defer { parent.deallocate() }
        for offset in stride(from: 0, to: parent.count, by: 4096) {
            parent.storeBytes(of: UInt8(1), toByteOffset: offset, as: UInt8.self)
        }
        let directory = try TemporaryDirectory()
        let output = directory.url.appendingPathComponent("peak")
        let run = try await ToolRun.run(
            helper,
            arguments: [output.path, "/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=\(Self.blockBytes)", "count=1"],
            environment: [:])
        #expect(run.code == 0, "\(run.stderr)")
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let peak = try #require(lines.first.flatMap { Int($0) })
        #expect(peak >= Self.blockBytes, "\(peak)")
        #expect(peak < Self.blockBytes + (64 << 20), "\(peak)")
        // The CPU time, in microseconds: writing the block takes some, and not seconds of it.
        let cpu = try #require(lines.dropFirst().first.flatMap { Int($0) })
        #expect(cpu > 0 && cpu < 10_000_000, "\(cpu)")
        withExtendedLifetime(parent) {}
    }

    @Test func theChildsExitStatusAndSignalAreKept() async throws {
        let helper = try #require(Self.helper)
        let directory = try TemporaryDirectory()
        let output = directory.url.appendingPathComponent("peak").path
        let exited = try await ToolRun.run(helper, arguments: [output, "/bin/sh", "-c", "exit 3"], environment: [:])
        #expect(exited.code == 3)
        let killed = try await ToolRun.run(
            helper, arguments: [output, "/bin/sh", "-c", "kill -TERM $$"], environment: [:])
        #expect(killed.code == 128 + SIGTERM)
        let usage = try await ToolRun.run(helper, arguments: [], environment: [:])
        #expect(usage.code == 2 && usage.stderr.contains("usage: peak-rss"))
    }
}
