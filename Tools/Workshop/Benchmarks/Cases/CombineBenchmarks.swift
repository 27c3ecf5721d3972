import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// Combine: events through a pipeline, sends to one subscriber, subscribe + cancel, global
/// instrumentation; each instrumented case against its plain twin in the same run.
enum CombineBenchmarks {
    static func engine(stacks: Bool, depth: Int = 32) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        configuration.capturesAllocationStacks = stacks
        configuration.stackDepth = depth
        return DiagnosticsEngine(configuration: configuration)
    }

    /// An `_Introspection` hook that does nothing: what OpenCombine's hook costs on its own.
    final class EmptyHook: _Introspection {}

    final class Sum: @unchecked Sendable {
        var value = 0
    }

    /// `PassthroughSubject → map → filter → sink`, optionally diagnosed at every stage.
    static func pipeline(
        _ subject: PassthroughSubject<Int, Never>, diagnosedBy engine: DiagnosticsEngine?, into sum: Sum
    ) -> AnyCancellable {
        guard let engine else {
            return subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.sink { sum.value &+= $0 }
        }
        return subject.diagnosed("subject", engine: engine)
            .map { $0 &+ 1 }.diagnosed("map", engine: engine)
            .filter { $0 & 1 == 0 }.diagnosed("filter", engine: engine)
            .sink { sum.value &+= $0 }
    }

    /// ns per event through a pipeline subscribed now.
    @inline(never)
    static func events(_ count: Int, diagnosedBy engine: DiagnosticsEngine?, warmUp: Int? = nil) -> Double {
        let subject = PassthroughSubject<Int, Never>()
        let sum = Sum()
        let subscription = pipeline(subject, diagnosedBy: engine, into: sum)
        let nanos = Measure.perOperation(count, warmUp: warmUp) { subject.send(sum.value) }
        subscription.cancel()
        blackHole(sum.value)
        return nanos
    }

    @inline(never)
    static func sends(_ count: Int, diagnosedBy engine: DiagnosticsEngine?) -> Double {
        let subject = PassthroughSubject<Int, Never>()
        let sum = Sum()
        let subscription =
            engine.map { subject.diagnosed("send", engine: $0).sink { sum.value &+= $0 } }
            ?? subject.sink { sum.value &+= $0 }
        let nanos = Measure.perOperation(count) { subject.send(1) }
        subscription.cancel()
        blackHole(sum.value)
        return nanos
    }

    @inline(never)
    static func subscribeAndCancel(_ count: Int, diagnosedBy engine: DiagnosticsEngine?, warmUp: Int? = nil) -> Double {
        let subject = PassthroughSubject<Int, Never>()
        let sum = Sum()
        return Measure.perOperation(count, warmUp: warmUp) {
            pipeline(subject, diagnosedBy: engine, into: sum).cancel()
        }
    }

    /// The same pipeline with one do-nothing stage (`handleEvents()`) where the diagnosed stage
    /// goes: what being one more Combine stage costs, before any diagnostics.
    @inline(never)
    static func subscribeAndCancelNoOpStage(_ count: Int, warmUp: Int? = nil) -> Double {
        let subject = PassthroughSubject<Int, Never>()
        let sum = Sum()
        return Measure.perOperation(count, warmUp: warmUp) {
            subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.handleEvents()
                .sink { sum.value &+= $0 }.cancel()
        }
    }

    /// The same pipeline counted once: one diagnosed stage, before the sink.
    @inline(never)
    static func subscribeAndCancelCountedOnce(_ count: Int, engine: DiagnosticsEngine, warmUp: Int? = nil) -> Double {
        let subject = PassthroughSubject<Int, Never>()
        let sum = Sum()
        return Measure.perOperation(count, warmUp: warmUp) {
            subject.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.diagnosed("pipeline", engine: engine)
                .sink { sum.value &+= $0 }.cancel()
        }
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let events = context.quick ? 50_000 : 400_000
        let subscriptions = context.quick ? 5_000 : 40_000
        let repetitions = context.repetitions

        let diagnosing = engine(stacks: true)
        let pipelineRun = Measure.paired(
            repetitions: repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance,
            baseline: { Self.events(events, diagnosedBy: nil) },
            instrumented: { Self.events(events, diagnosedBy: diagnosing) })
        results.append(
            BenchmarkResult(
                name: "combine.pipeline.plain", unit: "ns/event", statistics: pipelineRun.baseline))
        results.append(
            BenchmarkResult(
                name: "combine.pipeline.diagnosedEveryStage", unit: "ns/event", statistics: pipelineRun.instrumented))
        results.append(
            BenchmarkResult(
                name: "combine.pipeline.ratio", unit: "×", statistics: pipelineRun.ratio, target: .atMost(1.10),
                notes: ["what": "PassthroughSubject → map → filter → sink, .diagnosed() after each of the 3 stages"]))

        let sendRun = Measure.paired(
            repetitions: repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance,
            baseline: { Self.sends(events, diagnosedBy: nil) },
            instrumented: { Self.sends(events, diagnosedBy: diagnosing) })
        results.append(BenchmarkResult(name: "combine.send.plain", unit: "ns/send", statistics: sendRun.baseline))
        results.append(
            BenchmarkResult(name: "combine.send.diagnosed", unit: "ns/send", statistics: sendRun.instrumented))
        results.append(
            BenchmarkResult(
                name: "combine.send.ratio", unit: "×", statistics: sendRun.ratio, target: .atMost(1.20)))

        // Global instrumentation: plain, OpenCombine's hook with an empty handler, ours.
        var plain: [Double] = []
        var emptyHook: [Double] = []
        var ours: [Double] = []
        let hookEngine = engine(stacks: true)
        _ = Measure.rounds(
            minimum: repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance
        ) { _ in
            plain.append(Self.events(events / 4, diagnosedBy: nil))
            let hook = EmptyHook()
            hook.enable()
            emptyHook.append(Self.events(events / 4, diagnosedBy: nil))
            hook.disable()
            let instrumentation = CombineInstrumentation.start(engine: hookEngine)
            ours.append(Self.events(events / 4, diagnosedBy: nil))
            instrumentation.stop()
            return ours[ours.count - 1] / emptyHook[emptyHook.count - 1]
        }
        results.append(BenchmarkResult(name: "combine.global.plain", unit: "ns/event", statistics: Statistics(plain)))
        results.append(
            BenchmarkResult(
                name: "combine.global.emptyHook", unit: "ns/event", statistics: Statistics(emptyHook),
                notes: ["what": "OpenCombine's _Introspection with a handler that does nothing"]))
        results.append(BenchmarkResult(name: "combine.global.ours", unit: "ns/event", statistics: Statistics(ours)))
        results.append(
            BenchmarkResult(
                name: "combine.global.emptyHookOverPlain", unit: "×",
                statistics: Statistics(zip(emptyHook, plain).map { $0 / $1 })))
        results.append(
            BenchmarkResult(
                name: "combine.global.oursOverEmptyHook", unit: "×",
                statistics: Statistics(zip(ours, emptyHook).map { $0 / $1 }),
                target: .atMost(1.30)))

        // Subscribe + cancel: plain, counted without stacks, counted with 32-frame stacks; the
        // pipeline counted once (one diagnosed stage) and, for information, every stage diagnosed.
        let counted = engine(stacks: false)
        let stacked = engine(stacks: true, depth: 32)
        var base: [Double] = []
        var noOp: [Double] = []
        var once: [Double] = []
        var onceStacks: [Double] = []
        var every: [Double] = []
        var everyStacks: [Double] = []
        // Each repetition measures the six variants in turn in chunks (an eighth of the
        // subscriptions each), so that a slow moment of the machine falls on all of them alike;
        // repeated until the counted ratio, the tightest target, is settled.
        let chunks = context.quick ? 1 : 8
        let chunk = subscriptions / chunks
        _ = Measure.rounds(
            minimum: repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance
        ) { _ in
            var sums = [Double](repeating: 0, count: 6)
            for index in 0..<chunks {
                let warmUp = index == 0 ? nil : 0
                sums[0] += Self.subscribeAndCancel(chunk, diagnosedBy: nil, warmUp: warmUp)
                sums[1] += Self.subscribeAndCancelNoOpStage(chunk, warmUp: warmUp)
                sums[2] += Self.subscribeAndCancelCountedOnce(chunk, engine: counted, warmUp: warmUp)
                sums[3] += Self.subscribeAndCancelCountedOnce(chunk, engine: stacked, warmUp: warmUp)
                sums[4] += Self.subscribeAndCancel(chunk, diagnosedBy: counted, warmUp: warmUp)
                sums[5] += Self.subscribeAndCancel(chunk, diagnosedBy: stacked, warmUp: warmUp)
            }
            let perSubscription = sums.map { $0 / Double(chunks) }
            base.append(perSubscription[0])
            noOp.append(perSubscription[1])
            once.append(perSubscription[2])
            onceStacks.append(perSubscription[3])
            every.append(perSubscription[4])
            everyStacks.append(perSubscription[5])
            return perSubscription[2] / perSubscription[0]
        }
        func ratio(_ series: [Double]) -> Statistics { Statistics(zip(series, base).map { $0 / $1 }) }
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.plain", unit: "ns/subscription", statistics: Statistics(base)))
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.counted", unit: "ns/subscription", statistics: Statistics(once),
                notes: ["what": "subject → map → filter → .diagnosed() → sink, no stacks"]))
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.withStacks", unit: "ns/subscription", statistics: Statistics(onceStacks))
        )
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.countedRatio", unit: "×", statistics: ratio(once), target: .atMost(1.15))
        )
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.noOpStageRatio", unit: "×", statistics: ratio(noOp),
                notes: ["what": "a do-nothing handleEvents() stage in the same place: the cost of any extra stage"]))
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.countedOverNoOpStage", unit: "×",
                statistics: Statistics(zip(once, noOp).map { $0 / $1 }),
                notes: ["what": "the diagnosed stage against a do-nothing stage: what the diagnostics themselves cost"])
        )
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.withStacksRatio", unit: "×", statistics: ratio(onceStacks),
                target: .atMost(1.50),
                notes: ["what": "the same with a 32-frame allocation stack"]))
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.everyStageRatio", unit: "×", statistics: ratio(every),
                notes: ["what": "each of the 3 stages diagnosed (3 monitors), no stacks; for information"]))
        results.append(
            BenchmarkResult(
                name: "combine.subscribeCancel.everyStageWithStacksRatio", unit: "×", statistics: ratio(everyStacks),
                notes: ["what": "each of the 3 stages diagnosed, 32-frame stacks; for information"]))
        return results
    }
}
