import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// A diagnostic scheduler around a DispatchQueue: schedule + run, against the queue itself.
enum SchedulerBenchmarks {
    /// Schedules `count` actions on `scheduler` (with `options`) and waits until the last has
    /// run; ns per action.
    @inline(never)
    static func scheduleAndRun<S: Scheduler>(
        _ count: Int, on scheduler: S, options: S.SchedulerOptions? = nil
    ) -> Double {
        let done = DispatchSemaphore(value: 0)
        let counter = CombineBenchmarks.Sum()
        return Measure.batch(count) {
            for index in 0..<count {
                scheduler.schedule(options: options) {
                    counter.value &+= 1
                    if index == count - 1 { done.signal() }
                }
            }
            done.wait()
        }
    }

    /// Schedules `count` actions on `scheduler` while `queue` (its base) is suspended, then
    /// resumes it and waits for the last: ns per action for scheduling alone and for running
    /// alone, each thread's work without the other's in its way (`--profile schedulerSplit`).
    @inline(never)
    static func scheduleThenRun<S: Scheduler>(
        _ count: Int, on scheduler: S, suspending queue: DispatchQueue
    ) -> (schedule: Double, run: Double) {
        let done = DispatchSemaphore(value: 0)
        let counter = CombineBenchmarks.Sum()
        queue.suspend()
        let start = now()
        for index in 0..<count {
            scheduler.schedule {
                counter.value &+= 1
                if index == count - 1 { done.signal() }
            }
        }
        let scheduled = now()
        queue.resume()
        done.wait()
        let ran = now()
        return (Double(scheduled - start) / Double(count), Double(ran - scheduled) / Double(count))
    }

    /// Schedules one action and waits for it to run, `count` times; ns per round trip.
    @inline(never)
    static func roundTrips<S: Scheduler>(_ count: Int, on scheduler: S) -> Double {
        let ran = DispatchSemaphore(value: 0)
        return Measure.batch(count) {
            for _ in 0..<count {
                scheduler.schedule { ran.signal() }
                ran.wait()
            }
        }
    }

    /// How many times `--max-repetitions` the batch's ratio may take while it is not settled.
    static let batchSampleFactor = 3

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 20_000 : 200_000
        let queue = DispatchQueue(label: "benchmark.scheduler")
        // What the target covers: counts, pending work, latency histogram, thread check. The
        // scheduling stack (for findings) is measured separately.
        let counting = queue.diagnosed(
            "benchmark", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: false))
        let stacked = queue.diagnosed(
            "benchmark", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: true))
        _ = scheduleAndRun(count / 10, on: queue)
        _ = scheduleAndRun(count / 10, on: counting)
        _ = scheduleAndRun(count / 10, on: stacked)
        var plain: [Double] = []
        var diagnosed: [Double] = []
        var withStacks: [Double] = []
        var withOptions: [Double] = []
        var tripsPlain: [Double] = []
        var tripsDiagnosed: [Double] = []
        var tripsStacks: [Double] = []
        let trips = count / 10
        // Round trips and batches in rounds of their own, each repeated until its ratio is
        // settled. The batch's is the noisiest: its plain twin alone moves by half from one
        // batch to the next (how the queue's thread and the scheduling one meet on two cores),
        // single ratios range from 0.5 to 3, and 21 of them left the median ±10% from run to
        // run. A batch takes a tenth of a second, so it may take three times the samples.
        // (A sample as the median of three batches of each in a row was tried: no narrower,
        // and higher, as if what ran just before a batch set its pace.)
        _ = Measure.rounds(
            minimum: context.repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance
        ) { _ in
            tripsPlain.append(roundTrips(trips, on: queue))
            tripsDiagnosed.append(roundTrips(trips, on: counting))
            tripsStacks.append(roundTrips(trips, on: stacked))
            return tripsDiagnosed[tripsDiagnosed.count - 1] / tripsPlain[tripsPlain.count - 1]
        }
        _ = Measure.rounds(
            minimum: context.repetitions, maximum: Self.batchSampleFactor * context.maximumRepetitions,
            tolerance: context.settledTolerance
        ) { round in
            // Which of the plain and the counting batch goes first alternates, so that each
            // follows the other (and the stacks batch) as often.
            if round.isMultiple(of: 2) {
                plain.append(scheduleAndRun(count, on: queue))
                diagnosed.append(scheduleAndRun(count, on: counting))
            } else {
                diagnosed.append(scheduleAndRun(count, on: counting))
                plain.append(scheduleAndRun(count, on: queue))
            }
            withStacks.append(scheduleAndRun(count, on: stacked))
            // Options that ask nothing of the queue: the action goes through `DispatchQueue.async`
            // as a closure, which the plain queue's do anyway. Its ratio is what the
            // instrumentation itself costs, without the block the direct hand-over saves.
            withOptions.append(scheduleAndRun(count, on: counting, options: .init()))
            return diagnosed[diagnosed.count - 1] / plain[plain.count - 1]
        }
        return [
            BenchmarkResult(
                name: "scheduler.roundTrip.plain", unit: "ns/action", statistics: Statistics(tripsPlain),
                notes: ["what": "schedule one action on a DispatchQueue, wait until it has run"]),
            BenchmarkResult(
                name: "scheduler.roundTrip.diagnosed", unit: "ns/action", statistics: Statistics(tripsDiagnosed)),
            BenchmarkResult(
                name: "scheduler.roundTrip.ratio", unit: "×",
                statistics: Statistics(zip(tripsDiagnosed, tripsPlain).map { $0 / $1 }),
                target: .atMost(1.20),
                notes: ["what": "counts, pending action, latency and duration histograms, thread check"]),
            BenchmarkResult(
                name: "scheduler.roundTrip.withStacksRatio", unit: "×",
                statistics: Statistics(zip(tripsStacks, tripsPlain).map { $0 / $1 }),
                notes: ["what": "the same plus a 32-frame scheduling stack per action"]),
            BenchmarkResult(
                name: "scheduler.batch.plain", unit: "ns/action", statistics: Statistics(plain),
                notes: ["what": "schedule 200,000 actions back to back, then wait for the last"]),
            BenchmarkResult(
                name: "scheduler.batch.diagnosed", unit: "ns/action", statistics: Statistics(diagnosed)),
            BenchmarkResult(
                name: "scheduler.batch.ratio", unit: "×", statistics: Statistics(zip(diagnosed, plain).map { $0 / $1 }),
                target: .atMost(1.20),
                notes: [
                    "what":
                        "throughput of a batch scheduled back to back; every pending action is live in the scheduling thread's lane, found by checkpoints; each is handed to the queue as it is (dispatch_async_f), where the plain queue makes a block of each closure (throughDispatchRatio: the same through DispatchQueue.async)",
                    "pace":
                        "the queue's thread sleeps each time it catches up, and the wake-ups set the pace: the ratio grows with what scheduling costs more than running (a 40 ns wait added to every run took it from 1.2 to 1.0-1.15); --profile schedulerSplit times each side apart",
                ]),
            BenchmarkResult(
                name: "scheduler.batch.withStacksRatio", unit: "×",
                statistics: Statistics(zip(withStacks, plain).map { $0 / $1 }),
                notes: ["what": "the same plus a 32-frame scheduling stack per action; for information"]),
            BenchmarkResult(
                name: "scheduler.batch.throughDispatchRatio", unit: "×",
                statistics: Statistics(zip(withOptions, plain).map { $0 / $1 }),
                notes: [
                    "what":
                        "the counting batch with options, so each action goes to DispatchQueue.async as a closure (a block made and released per action, as the plain queue's): the instrumentation's own cost; for information"
                ]),
        ]
    }
}
