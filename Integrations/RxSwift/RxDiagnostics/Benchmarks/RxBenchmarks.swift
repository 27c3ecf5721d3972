import Foundation
import ReactiveDiagnostics
import RxDiagnostics
@preconcurrency import RxSwift
import _ReactiveDiagnosticsBenchmarkHarness

/// What `RxDiagnosticsHooks` costs a closure-based `subscribe` + `dispose`, against RxSwift with
/// the hooks off, measured alternately in the same run.
enum RxBenchmarks {
    /// An engine as tests have it: stacks on (64 frames), nothing written.
    static func engine(stacks: Bool) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        configuration.capturesAllocationStacks = stacks
        return DiagnosticsEngine(configuration: configuration)
    }

    final class Sum: @unchecked Sendable {
        var value = 0
    }

    /// `subject.subscribe(onNext:)` then `dispose()`, `count` times: ns per pair.
    @inline(never)
    static func subscribeDispose(_ count: Int, chained: Bool) -> Double {
        let subject = PublishSubject<Int>()
        let sum = Sum()
        return Measure.perOperation(count) {
            if chained {
                subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.subscribe(onNext: { sum.value &+= $0 }).dispose()
            } else {
                subject.subscribe(onNext: { sum.value &+= $0 }).dispose()
            }
        }
    }

    /// `Single.just(_:).subscribe(onSuccess:)`, `count` times: ns per subscription.
    @inline(never)
    static func singleSubscribe(_ count: Int) -> Double {
        let sum = Sum()
        return Measure.perOperation(count) {
            _ = Single.just(1).subscribe(onSuccess: { sum.value &+= $0 })
        }
    }

    /// `body` with the hooks installed on `engine` (or off, `nil`).
    static func with(hooks engine: DiagnosticsEngine?, _ body: () -> Double) -> Double {
        guard let engine else {
            RxDiagnosticsHooks.uninstall()
            return body()
        }
        RxDiagnosticsHooks.install(engine: engine)
        defer { RxDiagnosticsHooks.uninstall() }
        return body()
    }

    /// One case: hooks off, hooks on, and their ratio.
    static func pair(
        _ name: String, _ context: BenchmarkContext, target: BenchmarkResult.Target?, engine: DiagnosticsEngine,
        note: String, _ measure: @escaping () -> Double
    ) -> [BenchmarkResult] {
        let (off, on, ratio) = Measure.paired(
            repetitions: context.repetitions,
            baseline: { with(hooks: nil, measure) },
            instrumented: { with(hooks: engine, measure) })
        return [
            BenchmarkResult(name: "\(name).hooksOff", unit: "ns/op", statistics: off),
            BenchmarkResult(name: "\(name).hooksOn", unit: "ns/op", statistics: on),
            BenchmarkResult(
                name: "\(name).ratio", unit: "ratio", statistics: ratio, target: target, notes: ["what": note]),
        ]
    }

    /// One case in a tight loop, for `valgrind --tool=callgrind` or `perf`.
    static let profiles: [(name: String, run: @Sendable () -> Void)] = [
        ("plain", { blackHole(with(hooks: nil) { subscribeDispose(100_000, chained: false) }) }),
        // The plain case in a process whose hooks ran first (as in the paired measurement, which
        // shares the runtime's metadata caches between both sides).
        (
            "plainAfterHooks",
            {
                blackHole(
                    with(hooks: engine(stacks: true)) {
                        let subject = PublishSubject<Int>()
                        for _ in 0..<1_000 { subject.subscribe(onNext: { blackHole($0) }).dispose() }
                        return 0
                    })
                blackHole(with(hooks: nil) { subscribeDispose(100_000, chained: false) })
            }
        ),
        ("hooked", { blackHole(with(hooks: engine(stacks: true)) { subscribeDispose(100_000, chained: false) }) }),
        (
            "hookedNoStacks",
            { blackHole(with(hooks: engine(stacks: false)) { subscribeDispose(100_000, chained: false) }) }
        ),
    ]

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 20_000 : 200_000
        let stacks = engine(stacks: true)
        let counting = engine(stacks: false)
        var results: [BenchmarkResult] = []
        results += pair(
            "rxswift.subscribeDispose", context, target: .atMost(1.5), engine: stacks,
            note: "subject.subscribe(onNext:).dispose(), hooks with 64-frame stacks"
        ) {
            subscribeDispose(count, chained: false)
        }
        results += pair(
            "rxswift.subscribeDisposeNoStacks", context, target: nil, engine: counting,
            note: "the same, stacks off: what counting alone costs"
        ) {
            subscribeDispose(count, chained: false)
        }
        results += pair(
            "rxswift.chainSubscribeDispose", context, target: nil, engine: stacks,
            note: "subject.map.filter.subscribe(onNext:).dispose(), hooks with stacks"
        ) {
            subscribeDispose(count, chained: true)
        }
        results += pair(
            "rxswift.singleSubscribe", context, target: nil, engine: stacks,
            note:
                "Single.just.subscribe(onSuccess:): not hooked; RxSwift's debug builds capture Thread.callStackSymbols when the hooks are on"
        ) {
            singleSubscribe(count / 10)
        }
        return results
    }
}
