import Foundation

// Hand-written readers for every report type: one pass over the bytes, no intermediate
// tree. Unknown members are skipped; required members are checked with their path.

extension DiagnosticsReport {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> DiagnosticsReport {
        var schemaVersion: Int?, tool: ToolInfo?, run: RunInfo?, findings: [ReportFinding]?
        var ledger: LedgerSummary?, schedulers: [SchedulerSummary]?, stacks: [ReportStack]?
        var images: [ReportImage]?, dropped: Int?, sourceLines: SourceLineStatus?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "schemaVersion": schemaVersion = try r.readInt()
            case "tool": tool = try ToolInfo.read(&r)
            case "run": run = try RunInfo.read(&r)
            case "findings": findings = try r.readArray(ReportFinding.read)
            case "ledger": ledger = try LedgerSummary.read(&r)
            case "schedulers": schedulers = try r.readArray(SchedulerSummary.read)
            case "stacks": stacks = try r.readArray(ReportStack.read)
            case "images": images = try r.readArray(ReportImage.read)
            case "droppedFindings": dropped = try r.readInt()
            case "sourceLines": sourceLines = try r.optional(SourceLineStatus.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return DiagnosticsReport(
            schemaVersion: try r.required(schemaVersion, "schemaVersion"), tool: try r.required(tool, "tool"),
            run: try r.required(run, "run"), findings: try r.required(findings, "findings"),
            ledger: try r.required(ledger, "ledger"), schedulers: try r.required(schedulers, "schedulers"),
            stacks: try r.required(stacks, "stacks"), images: try r.required(images, "images"),
            droppedFindings: try r.required(dropped, "droppedFindings"), sourceLines: sourceLines)
    }
}

extension SourceLineStatus {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> SourceLineStatus {
        var state: State?, userFrames: Int?, resolved: Int?, resolver: String?, reason: String?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "state": state = try r.readEnum(State.self)
            case "userFrames": userFrames = try r.readInt()
            case "resolvedUserFrames": resolved = try r.readInt()
            case "resolver": resolver = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "reason": reason = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return SourceLineStatus(
            state: try r.required(state, "state"), userFrames: try r.required(userFrames, "userFrames"),
            resolvedUserFrames: try r.required(resolved, "resolvedUserFrames"), resolver: resolver, reason: reason)
    }
}

extension ToolInfo {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ToolInfo {
        var name: String?, version: String?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "name": name = try r.readString()
            case "version": version = try r.readString()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ToolInfo(name: try r.required(name, "name"), version: try r.required(version, "version"))
    }
}

extension RunInfo {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> RunInfo {
        var processName: String?, processID: Int?, arguments: [String]?, executable: String?
        var workingDirectory: String?, hostName: String?, platform: String?, toolchain: String?
        var startTime: Date?, endTime: Date?, completeness: Completeness?, tests: [TestRecord]?, processCount: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "processName": processName = try r.readString()
            case "processID": processID = try r.readInt()
            case "arguments": arguments = try r.readStrings()
            case "executable": executable = try r.readString()
            case "workingDirectory": workingDirectory = try r.readString()
            case "hostName": hostName = try r.readString()
            case "platform": platform = try r.readString()
            case "toolchain": toolchain = try r.readString()
            case "startTime": startTime = try r.readDate()
            case "endTime": endTime = try r.readDate()
            case "completeness": completeness = try r.readEnum(Completeness.self)
            case "tests": tests = try r.readArray(TestRecord.read)
            case "processCount": processCount = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        let pid = try r.required(processID, "processID")
        guard let pid32 = Int32(exactly: pid) else { throw r.shape("processID is out of range") }
        return RunInfo(
            processName: try r.required(processName, "processName"), processID: pid32,
            arguments: try r.required(arguments, "arguments"), executable: try r.required(executable, "executable"),
            workingDirectory: try r.required(workingDirectory, "workingDirectory"),
            hostName: try r.required(hostName, "hostName"), platform: try r.required(platform, "platform"),
            toolchain: try r.required(toolchain, "toolchain"), startTime: try r.required(startTime, "startTime"),
            endTime: try r.required(endTime, "endTime"), completeness: try r.required(completeness, "completeness"),
            tests: try r.required(tests, "tests"), processCount: try r.required(processCount, "processCount"))
    }
}


extension TestRecord {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> TestRecord {
        var name: String?, findings: Int?, failed: Bool?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "name": name = try r.readString()
            case "findings": findings = try r.readInt()
            case "failed": failed = try r.readBool()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return TestRecord(
            name: try r.required(name, "name"), findings: try r.required(findings, "findings"),
            failed: try r.required(failed, "failed"))
    }
}

extension ReportFinding {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportFinding {
        var id: Int?, kind: String?, severity: ReportSeverity?, message: String?, label: String?
        var resourceKind: String?, test: String?, fingerprint: String?, policy: String?, suppressedBy: String?
        var allocationStack: Int?, eventStack: Int?, relatedStack: Int?, thread: ReportThread?
        var otherThread: ReportThread?, time: Double?, details: [String: String]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "id": id = try r.readInt()
            case "kind": kind = try r.readString()
            case "severity": severity = try r.readEnum(ReportSeverity.self)
            case "message": message = try r.readString()
            case "label": label = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "resourceKind": resourceKind = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "test": test = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "fingerprint": fingerprint = try r.readString()
            case "policy": policy = try r.readString()
            case "suppressedBy": suppressedBy = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "allocationStack": allocationStack = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "eventStack": eventStack = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "relatedStack": relatedStack = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "thread": thread = try r.optional(ReportThread.read)
            case "otherThread": otherThread = try r.optional(ReportThread.read)
            case "time": time = try r.readDouble()
            case "details": details = try r.readStringDictionary()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportFinding(
            id: try r.required(id, "id"), kind: try r.required(kind, "kind"),
            severity: try r.required(severity, "severity"), message: try r.required(message, "message"),
            label: label, resourceKind: resourceKind, test: test, fingerprint: try r.required(fingerprint, "fingerprint"),
            policy: try r.required(policy, "policy"), suppressedBy: suppressedBy, allocationStack: allocationStack,
            eventStack: eventStack, relatedStack: relatedStack, thread: thread, otherThread: otherThread,
            time: try r.required(time, "time"), details: try r.required(details, "details"))
    }
}

extension ReportThread {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportThread {
        var id: UInt64?, name: String?, queue: String?, isMainQueue: Bool?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "id": id = try r.readUInt64()
            case "name": name = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "queue": queue = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "isMainQueue": isMainQueue = try r.readBool()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportThread(
            id: try r.required(id, "id"), name: name, queue: queue, isMainQueue: try r.required(isMainQueue, "isMainQueue"))
    }
}

extension LedgerSummary {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> LedgerSummary {
        var kinds: [KindTotals]?, liveAtEnd: [LiveSite]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "kinds": kinds = try r.readArray(KindTotals.read)
            case "liveAtEnd": liveAtEnd = try r.readArray(LiveSite.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return LedgerSummary(kinds: try r.required(kinds, "kinds"), liveAtEnd: try r.required(liveAtEnd, "liveAtEnd"))
    }
}

extension KindTotals {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> KindTotals {
        var kind: String?, registered: Int?, peak: Int?, live: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "kind": kind = try r.readString()
            case "registered": registered = try r.readInt()
            case "peak": peak = try r.readInt()
            case "live": live = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return KindTotals(
            kind: try r.required(kind, "kind"), registered: try r.required(registered, "registered"),
            peak: try r.required(peak, "peak"), live: try r.required(live, "live"))
    }
}

extension LiveSite {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> LiveSite {
        var kind: String?, label: String?, stack: Int?, count: Int?, tests: [String]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "kind": kind = try r.readString()
            case "label": label = try r.readString()
            case "stack": stack = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "count": count = try r.readInt()
            case "tests": tests = try r.readStrings()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return LiveSite(
            kind: try r.required(kind, "kind"), label: try r.required(label, "label"), stack: stack,
            count: try r.required(count, "count"), tests: try r.required(tests, "tests"))
    }
}

extension SchedulerSummary {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> SchedulerSummary {
        var label: String?, scheduled: Int?, executed: Int?, cancelled: Int?, pending: Int?
        var activeRepeating: Int?, longActions: Int?, threadViolations: Int?, expectation: String?
        var latency: LatencySummary?, duration: LatencySummary?, threads: [ThreadCount]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "label": label = try r.readString()
            case "scheduled": scheduled = try r.readInt()
            case "executed": executed = try r.readInt()
            case "cancelled": cancelled = try r.readInt()
            case "pending": pending = try r.readInt()
            case "activeRepeating": activeRepeating = try r.readInt()
            case "longActions": longActions = try r.readInt()
            case "threadViolations": threadViolations = try r.readInt()
            case "expectation": expectation = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "latency": latency = try LatencySummary.read(&r)
            case "duration": duration = try LatencySummary.read(&r)
            case "threads": threads = try r.readArray(ThreadCount.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return SchedulerSummary(
            label: try r.required(label, "label"), scheduled: try r.required(scheduled, "scheduled"),
            executed: try r.required(executed, "executed"), cancelled: try r.required(cancelled, "cancelled"),
            pending: try r.required(pending, "pending"), activeRepeating: try r.required(activeRepeating, "activeRepeating"),
            longActions: try r.required(longActions, "longActions"),
            threadViolations: try r.required(threadViolations, "threadViolations"), expectation: expectation,
            latency: try r.required(latency, "latency"), duration: try r.required(duration, "duration"),
            threads: try r.required(threads, "threads"))
    }
}

extension LatencySummary {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> LatencySummary {
        var count: Int?, minimum: UInt64?, maximum: UInt64?, mean: Double?
        var p50: UInt64?, p90: UInt64?, p99: UInt64?, buckets: [HistogramBucket]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "count": count = try r.readInt()
            case "minNanos": minimum = try r.readUInt64()
            case "maxNanos": maximum = try r.readUInt64()
            case "meanNanos": mean = try r.readDouble()
            case "p50Nanos": p50 = try r.readUInt64()
            case "p90Nanos": p90 = try r.readUInt64()
            case "p99Nanos": p99 = try r.readUInt64()
            case "buckets": buckets = try r.readArray(HistogramBucket.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return LatencySummary(
            count: try r.required(count, "count"), minNanos: try r.required(minimum, "minNanos"),
            maxNanos: try r.required(maximum, "maxNanos"), meanNanos: try r.required(mean, "meanNanos"),
            p50Nanos: try r.required(p50, "p50Nanos"), p90Nanos: try r.required(p90, "p90Nanos"),
            p99Nanos: try r.required(p99, "p99Nanos"), buckets: try r.required(buckets, "buckets"))
    }
}

extension HistogramBucket {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> HistogramBucket {
        var lower: UInt64?, upper: UInt64?, count: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "lowerNanos": lower = try r.readUInt64()
            case "upperNanos": upper = try r.readUInt64()
            case "count": count = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return HistogramBucket(
            lowerNanos: try r.required(lower, "lowerNanos"), upperNanos: try r.required(upper, "upperNanos"),
            count: try r.required(count, "count"))
    }
}

extension ThreadCount {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ThreadCount {
        var thread: String?, isMainQueue: Bool?, count: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "thread": thread = try r.readString()
            case "isMainQueue": isMainQueue = try r.readBool()
            case "count": count = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ThreadCount(
            thread: try r.required(thread, "thread"), isMainQueue: try r.required(isMainQueue, "isMainQueue"),
            count: try r.required(count, "count"))
    }
}

extension ReportStack {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportStack {
        var id: Int?, frames: [ReportFrame]?, dropped: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "id": id = try r.readInt()
            case "frames": frames = try r.readArray(ReportFrame.read)
            case "droppedFrames": dropped = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportStack(
            id: try r.required(id, "id"), frames: try r.required(frames, "frames"),
            droppedFrames: try r.required(dropped, "droppedFrames"))
    }
}

extension ReportFrame {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportFrame {
        var address: String?, image: Int?, offset: String?, symbol: String?, function: String?
        var module: String?, category: FrameCategory?, file: String?, line: Int?, column: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "address": address = try r.readString()
            case "image": image = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "offset": offset = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "symbol": symbol = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "function": function = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "module": module = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "category": category = try r.readEnum(FrameCategory.self)
            case "file": file = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "line": line = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "column": column = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportFrame(
            address: try r.required(address, "address"), image: image, offset: offset, symbol: symbol,
            function: function, module: module, category: try r.required(category, "category"), file: file,
            line: line, column: column)
    }
}

extension ReportImage {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportImage {
        var id: Int?, path: String?, buildID: String?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "id": id = try r.readInt()
            case "path": path = try r.readString()
            case "buildID": buildID = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportImage(id: try r.required(id, "id"), path: try r.required(path, "path"), buildID: buildID)
    }
}
