import Foundation
import Testing
import _ReactiveDiagnosticsProcess

/// Child processes (llvm-symbolizer, test children): their signals, exit status, output and
/// timeout reach the caller as they were.
@Suite struct SubprocessTests {
    @Test func aChildGetsItsSignalsAndItsExitStatus() throws {
        // A signal it handles, then an exit status.
        let handled = try Subprocess.run(
            "/bin/sh", arguments: ["-c", "trap 'exit 3' USR1; kill -USR1 $$; sleep 5"], timeout: 60)
        #expect(handled.status == 3 && !handled.crashed && !handled.timedOut)
        // A signal that ends it.
        let killed = try Subprocess.run("/bin/sh", arguments: ["-c", "kill -TERM $$; sleep 5"], timeout: 60)
        #expect(killed.crashed && killed.status == SIGTERM)
        // Its output.
        let echoed = try Subprocess.run("/bin/sh", arguments: ["-c", "echo measured"], timeout: 60)
        #expect(String(decoding: echoed.standardOutput, as: UTF8.self) == "measured\n")
    }

    @Test func aChildIsKilledAtItsTimeout() throws {
        let result = try Subprocess.run("/bin/sh", arguments: ["-c", "sleep 30"], timeout: 0.5)
        #expect(result.timedOut && result.crashed && result.status == SIGKILL)
    }
}
