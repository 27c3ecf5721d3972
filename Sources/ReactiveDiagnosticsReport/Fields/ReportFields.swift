// Every field of the report, declared once. The single-pass writer and reader are generated
// from these tables (`ReportFieldCodeTests`; `UPDATE_GENERATED=1` rewrites them), and
// `ReportSchemaAgreementTests` holds Docs/report.schema.json and the Codable model to them.
// Adding a field: a property in the model, a line here, then the tests with UPDATE_GENERATED=1
// (and the schema test says what the schema must gain). Each table lists the fields in the
// order of the model's memberwise initializer; the writer writes them sorted by key.

extension DiagnosticsReport: ReportObject {
    package static let fields: [ReportField] = [
        .required("schemaVersion", .int),
        .required("tool", .object(ToolInfo.self)),
        .required("run", .object(RunInfo.self)),
        .required("findings", .array(ReportFinding.self)),
        .required("ledger", .object(LedgerSummary.self)),
        .required("schedulers", .array(SchedulerSummary.self)),
        .required("stacks", .array(ReportStack.self)),
        .required("images", .array(ReportImage.self)),
        .required("droppedFindings", .int),
        .optional("sourceLines", .object(SourceLineStatus.self), since: 2),
    ]
}

extension ToolInfo: ReportObject {
    package static let fields: [ReportField] = [
        .required("name", .string),
        .required("version", .string),
    ]
}

extension RunInfo: ReportObject {
    package static let fields: [ReportField] = [
        .required("processName", .string),
        .required("processID", .int32),
        .required("arguments", .strings),
        .required("executable", .string),
        .required("workingDirectory", .string),
        .required("hostName", .string),
        .required("platform", .string),
        .required("toolchain", .string),
        .required("startTime", .date),
        .required("endTime", .date),
        .required("completeness", .oneOf(Completeness.self)),
        .required("tests", .array(TestRecord.self)),
        .required("processCount", .int),
    ]
}

extension TestRecord: ReportObject {
    package static let fields: [ReportField] = [
        .required("name", .string),
        .required("findings", .int),
        .required("failed", .bool),
    ]
}

extension ReportFinding: ReportObject {
    package static let fields: [ReportField] = [
        .required("id", .int),
        .required("kind", .string),
        .required("severity", .oneOf(ReportSeverity.self)),
        .required("message", .string),
        .optional("label", .string),
        .optional("resourceKind", .string),
        .optional("test", .string),
        .required("fingerprint", .string),
        .required("policy", .string),
        .optional("suppressedBy", .string),
        .optional("allocationStack", .int),
        .optional("eventStack", .int),
        .optional("relatedStack", .int),
        .optional("thread", .object(ReportThread.self)),
        .optional("otherThread", .object(ReportThread.self)),
        .required("time", .double),
        .required("details", .stringMap),
        .optional("retainPath", .object(ReportRetainPath.self)),
        .optional("chain", .array(ReportChainStage.self)),
    ]
}

extension ReportChainStage: ReportObject {
    package static let fields: [ReportField] = [
        .optional("label", .string),
        .required("resourceKind", .string),
        .optional("allocationStack", .int),
        .required("fingerprint", .string),
        .optional("innerOf", .string),
        .required("isCause", .bool),
    ]
}

extension ReportRetainPath: ReportObject {
    package static let fields: [ReportField] = [
        .required("verdict", .oneOf(Verdict.self)),
        .required("cycle", .array(ReportRetainStep.self)),
        .required("holds", .array(ReportRetainHold.self)),
        .optional("holder", .string),
        .required("heldBy", .array(ReportRetainStep.self)),
        .required("notes", .strings),
        .required("objectsVisited", .int),
        .required("milliseconds", .double),
    ]
}

extension ReportRetainStep: ReportObject {
    package static let fields: [ReportField] = [
        .required("type", .string),
        .optional("module", .string),
        .required("category", .oneOf(FrameCategory.self)),
        .required("isSubscription", .bool),
        .required("links", .array(ReportRetainLink.self)),
    ]
}

extension ReportRetainLink: ReportObject {
    package static let fields: [ReportField] = [
        .required("kind", .oneOf(Kind.self)),
        .optional("name", .string),
        .optional("type", .string),
        .optional("closure", .object(ReportClosure.self)),
        .optional("strength", .oneOf(ReportReferenceStrength.self)),
    ]
}

extension ReportClosure: ReportObject {
    package static let fields: [ReportField] = [
        .required("function", .string),
        .optional("file", .string),
        .optional("line", .int),
        .optional("column", .int),
        .required("category", .oneOf(FrameCategory.self)),
        .optional("sourceText", .string),
    ]
}

extension ReportRetainHold: ReportObject {
    package static let fields: [ReportField] = [
        .required("from", .string),
        .required("links", .array(ReportRetainLink.self)),
        .required("type", .string),
        .required("strength", .oneOf(ReportReferenceStrength.self)),
    ]
}

extension ReportThread: ReportObject {
    package static let fields: [ReportField] = [
        .required("id", .uint64),
        .optional("name", .string),
        .optional("queue", .string),
        .required("isMainQueue", .bool),
    ]
}

extension LedgerSummary: ReportObject {
    package static let fields: [ReportField] = [
        .required("kinds", .array(KindTotals.self)),
        .required("liveAtEnd", .array(LiveSite.self)),
    ]
}

extension KindTotals: ReportObject {
    package static let fields: [ReportField] = [
        .required("kind", .string),
        .required("registered", .int),
        .required("peak", .int),
        .required("live", .int),
    ]
}

extension LiveSite: ReportObject {
    package static let fields: [ReportField] = [
        .required("kind", .string),
        .required("label", .string),
        .optional("stack", .int),
        .required("count", .int),
        .required("tests", .strings),
    ]
}

extension SchedulerSummary: ReportObject {
    package static let fields: [ReportField] = [
        .required("label", .string),
        .required("scheduled", .int),
        .required("executed", .int),
        .required("cancelled", .int),
        .required("pending", .int),
        .required("activeRepeating", .int),
        .required("longActions", .int),
        .required("threadViolations", .int),
        .optional("expectation", .string),
        .required("latency", .object(LatencySummary.self)),
        .required("duration", .object(LatencySummary.self)),
        .required("threads", .array(ThreadCount.self)),
        .optional("instances", .int),
    ]
}

extension LatencySummary: ReportObject {
    package static let fields: [ReportField] = [
        .required("count", .int),
        .required("minNanos", .uint64),
        .required("maxNanos", .uint64),
        .required("meanNanos", .double),
        .required("p50Nanos", .uint64),
        .required("p90Nanos", .uint64),
        .required("p99Nanos", .uint64),
        .required("buckets", .array(HistogramBucket.self)),
    ]
}

extension HistogramBucket: ReportObject {
    package static let fields: [ReportField] = [
        .required("lowerNanos", .uint64),
        .required("upperNanos", .uint64),
        .required("count", .int),
    ]
}

extension ThreadCount: ReportObject {
    package static let fields: [ReportField] = [
        .required("thread", .string),
        .required("isMainQueue", .bool),
        .required("count", .int),
    ]
}

extension ReportStack: ReportObject {
    package static let fields: [ReportField] = [
        .required("id", .int),
        .required("frames", .array(ReportFrame.self)),
        .required("droppedFrames", .int),
    ]
}

extension ReportFrame: ReportObject {
    package static let fields: [ReportField] = [
        .required("address", .string),
        .optional("image", .int),
        .optional("offset", .string),
        .optional("symbol", .string),
        .optional("function", .string),
        .optional("module", .string),
        .required("category", .oneOf(FrameCategory.self)),
        .optional("file", .string),
        .optional("line", .int),
        .optional("column", .int),
    ]
}

extension ReportImage: ReportObject {
    package static let fields: [ReportField] = [
        .required("id", .int),
        .required("path", .string),
        .optional("buildID", .string),
    ]
}

extension SourceLineStatus: ReportObject {
    package static let fields: [ReportField] = [
        .required("state", .oneOf(State.self)),
        .required("userFrames", .int),
        .required("resolvedUserFrames", .int),
        .optional("resolver", .string),
        .optional("reason", .string),
    ]
}

extension FindingUpdate: ReportObject {
    package static let fields: [ReportField] = [
        .required("id", .int),
        .optional("relatedStack", .int),
        .optional("otherThread", .object(ReportThread.self)),
        .optional("fingerprint", .string),
    ]
}

extension RunInfo.Completeness: ReportEnumeration {}
extension ReportSeverity: ReportEnumeration {}
extension FrameCategory: ReportEnumeration {}
extension SourceLineStatus.State: ReportEnumeration {}
extension ReportRetainPath.Verdict: ReportEnumeration {}
extension ReportRetainLink.Kind: ReportEnumeration {}
extension ReportReferenceStrength: ReportEnumeration {}
