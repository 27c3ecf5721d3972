import ReactiveDiagTool

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `reactive-diag` executable: everything happens in ``ReactiveDiag/run(arguments:stdout:stderr:environment:currentDirectory:)``.
@main
enum ReactiveDiagMain {
    static func main() {
        // `reactive-diag show … | head` must end quietly, not die of SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        exit(ReactiveDiag.run(arguments: Array(CommandLine.arguments.dropFirst())))
    }
}
