import CombineDiagnostics
import Foundation

/// One case in a tight loop, for `perf` or `valgrind --tool=callgrind`:
/// `reactive-diag-benchmark --profile subscribeCancel` (or another of ``cases``).
enum Profiling {
    /// The cases `--profile` knows.
    static let cases = ["subscribeCancel", "subscribeCancelOnce", "subscribeCancelPlain", "subscribeCancelStacks", "scheduler"]

    static func run(_ name: String) {
        switch name {
        case "subscribeCancel":
            let engine = CombineBenchmarks.engine(stacks: false)
            blackHole(CombineBenchmarks.subscribeAndCancel(200_000, diagnosedBy: engine))
        case "subscribeCancelOnce":
            let engine = CombineBenchmarks.engine(stacks: false)
            blackHole(CombineBenchmarks.subscribeAndCancelCountedOnce(400_000, engine: engine))
        case "subscribeCancelPlain":
            blackHole(CombineBenchmarks.subscribeAndCancel(400_000, diagnosedBy: nil))
        case "subscribeCancelStacks":
            let engine = CombineBenchmarks.engine(stacks: true)
            blackHole(CombineBenchmarks.subscribeAndCancel(200_000, diagnosedBy: engine))
        case "scheduler":
            let engine = CombineBenchmarks.engine(stacks: true)
            let queue = DispatchQueue(label: "profile")
            blackHole(SchedulerBenchmarks.scheduleAndRun(500_000, on: queue.diagnosed("p", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: false))))
            blackHole(engine)
        default:
            preconditionFailure("unknown profile case \(name); the command line checks against Profiling.cases")
        }
    }
}
