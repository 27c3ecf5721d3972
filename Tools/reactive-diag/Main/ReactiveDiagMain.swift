import Foundation
import ReactiveDiagFix
import ReactiveDiagTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `reactive-diag` executable: everything happens in ``ReactiveDiag/run(arguments:stdout:stderr:environment:currentDirectory:)``.
/// The executable adds what needs swift-syntax (ReactiveDiagFix): the `fix` command, and the
/// fixer that gives the gate's SARIF its `fixes` and the HTML page its diffs.
@main
enum ReactiveDiagMain {
    static func main() {
        // `reactive-diag show … | head` must end quietly, not die of SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        exit(ReactiveDiag.run(arguments: Array(CommandLine.arguments.dropFirst()), extensions: .withFixes()))
    }
}
