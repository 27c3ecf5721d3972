import Foundation
import Testing
import _ReactiveDiagnosticsProcess

/// Child processes: the peak memory the suite benchmark reports, and that following a child
/// to its exit changes nothing of what it does.
@Suite struct SubprocessTests {
    /// `dd` with a 64 MiB block allocates the block and reads into every page of it.
    private static let blockBytes = 64 << 20

    @Test func aChildsPeakMemoryIsItsOwnNotItsParents() throws {
        // While the parent has 256 MiB resident: wait4's ru_maxrss would say at least that
        // much for any child spawned now.
        let parent = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 20, alignment: 4096)
        defer { parent.deallocate() }
        for offset in stride(from: 0, to: parent.count, by: 4096) {
            parent.storeBytes(of: UInt8(1), toByteOffset: offset, as: UInt8.self)
        }
        // The shell waits first, so that the child is traced before it runs `dd` (a child that
        // ends before it can be traced has no peak), then becomes `dd` (same process).
        let result = try Subprocess.run(
            "/bin/sh", arguments: ["-c", "sleep 0.3; exec /bin/dd if=/dev/zero of=/dev/null bs=\(Self.blockBytes) count=1"],
            timeout: 60, measuresPeakMemory: true)
        #expect(result.status == 0 && !result.crashed)
        #if os(Linux)
        #expect(result.peakResidentBytes >= Self.blockBytes, "\(result.peakResidentBytes)")
        #expect(result.peakResidentBytes < Self.blockBytes + (64 << 20), "\(result.peakResidentBytes)")
        #endif
        withExtendedLifetime(parent) {}
    }

    @Test func peakMemoryIsOnlyMeasuredWhenAskedFor() throws {
        let result = try Subprocess.run("/bin/sh", arguments: ["-c", "exit 0"], timeout: 60)
        #expect(result.peakResidentBytes == 0)
    }

    @Test func aMeasuredChildGetsItsSignalsAndItsExitStatus() throws {
        // A signal it handles (delivered while it is traced), then an exit status.
        let handled = try Subprocess.run(
            "/bin/sh", arguments: ["-c", "trap 'exit 3' USR1; kill -USR1 $$; sleep 5"], timeout: 60,
            measuresPeakMemory: true)
        #expect(handled.status == 3 && !handled.crashed && !handled.timedOut)
        // A signal that ends it.
        let killed = try Subprocess.run(
            "/bin/sh", arguments: ["-c", "kill -TERM $$; sleep 5"], timeout: 60, measuresPeakMemory: true)
        #expect(killed.crashed && killed.status == SIGTERM)
        // Its output, as without measuring.
        let echoed = try Subprocess.run(
            "/bin/sh", arguments: ["-c", "echo measured"], timeout: 60, measuresPeakMemory: true)
        #expect(String(decoding: echoed.standardOutput, as: UTF8.self) == "measured\n")
    }

    @Test func aMeasuredChildIsStillKilledAtItsTimeout() throws {
        let result = try Subprocess.run(
            "/bin/sh", arguments: ["-c", "sleep 30"], timeout: 0.5, measuresPeakMemory: true)
        #expect(result.timedOut && result.crashed && result.status == SIGKILL)
    }
}
