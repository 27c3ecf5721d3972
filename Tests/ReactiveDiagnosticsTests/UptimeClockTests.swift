import CReactiveDiagnostics
import Dispatch
import Testing

/// The scheduler probes' clock (the time-stamp counter where the kernel's clock source is the
/// TSC) reads Dispatch's uptime: what adapters compute due times with.
@Suite("Uptime clock")
struct UptimeClockTests {
    @Test func readsDispatchsUptime() {
        for _ in 0..<1_000 {
            let before = DispatchTime.now().uptimeNanoseconds
            let ours = rdiag_uptime_nanoseconds()
            let after = DispatchTime.now().uptimeNanoseconds
            // Within a millisecond either side (re-anchoring bounds any drift far below that).
            #expect(ours + 1_000_000 >= before && ours <= after + 1_000_000, "\(before) \(ours) \(after)")
        }
    }

    @Test func advancesWithDispatchsUptime() {
        let start = (ours: rdiag_uptime_nanoseconds(), dispatch: DispatchTime.now().uptimeNanoseconds)
        Self.spin(until: start.dispatch + 5_000_000)
        let end = (ours: rdiag_uptime_nanoseconds(), dispatch: DispatchTime.now().uptimeNanoseconds)
        let ours = Double(end.ours - start.ours)
        let dispatch = Double(end.dispatch - start.dispatch)
        #expect(abs(ours - dispatch) < 1_000_000, "ours advanced \(ours) ns, Dispatch's \(dispatch) ns")
    }

    /// The ticks' rate (calibrated over 250 µs, each end read within a tight bracket) agrees with
    /// Dispatch's uptime over 20 ms to within 0.1%: latencies and run times are right. One try of
    /// three is enough (a try the thread was preempted in is off by the preemption).
    @Test func ticksAdvanceAtTheCalibratedRate() {
        rdiag_ticks_prepare()
        var errors: [Double] = []
        for _ in 0..<3 {
            let start = (ticks: rdiag_ticks(), dispatch: DispatchTime.now().uptimeNanoseconds)
            Self.spin(until: start.dispatch + 20_000_000)
            let end = (ticks: rdiag_ticks(), dispatch: DispatchTime.now().uptimeNanoseconds)
            let ours = rdiag_ticks_to_nanoseconds(end.ticks - start.ticks)
            let dispatch = Double(end.dispatch - start.dispatch)
            errors.append(abs(Double(ours) - dispatch) / dispatch)
            if errors.last! < 0.001 { break }
        }
        #expect(errors.min()! < 0.001, "relative errors \(errors)")
    }

    /// Keeps the thread busy until Dispatch's uptime reaches `deadline` (nanoseconds).
    private static func spin(until deadline: UInt64) {
        while DispatchTime.now().uptimeNanoseconds < deadline {}
    }
}
