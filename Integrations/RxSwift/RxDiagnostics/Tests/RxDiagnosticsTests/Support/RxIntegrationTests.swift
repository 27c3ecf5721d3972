import Testing

/// Every suite of this target, run one test at a time: a few tests read process-wide state
/// (RxSwift's `Hooks`, `Resources.total` when built with `TRACE_RESOURCES`, RxSwift's debug
/// prints on standard output) that tests running in parallel would disturb.
///
/// Each test still uses its own private engine, so findings never cross tests.
@Suite(.serialized)
enum RxIntegrationTests {}
