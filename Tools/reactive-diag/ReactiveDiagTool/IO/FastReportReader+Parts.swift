import ReactiveDiagnosticsReport

extension JSONCursor {
    mutating func finding() throws -> ReportFinding {
        var id: Int?, kind: String?, severity: ReportSeverity?, message: String?, label: String?, resourceKind: String?
        var test: String?, fingerprint: String?, policy: String?, suppressedBy: String?, allocation: Int?, event: Int?
        var related: Int?, thread: ReportThread?, otherThread: ReportThread?, time: Double?, details: [String: String]?
        try object { cursor, key in
            switch key {
            case "id": id = try cursor.int()
            case "kind": kind = try cursor.string()
            case "severity": severity = try required(ReportSeverity(rawValue: try cursor.string()))
            case "message": message = try cursor.string()
            case "label": label = try cursor.optional { try $0.string() }
            case "resourceKind": resourceKind = try cursor.optional { try $0.string() }
            case "test": test = try cursor.optional { try $0.string() }
            case "fingerprint": fingerprint = try cursor.string()
            case "policy": policy = try cursor.string()
            case "suppressedBy": suppressedBy = try cursor.optional { try $0.string() }
            case "allocationStack": allocation = try cursor.optional { try $0.int() }
            case "eventStack": event = try cursor.optional { try $0.int() }
            case "relatedStack": related = try cursor.optional { try $0.int() }
            case "thread": thread = try cursor.optional { try $0.thread() }
            case "otherThread": otherThread = try cursor.optional { try $0.thread() }
            case "time": time = try cursor.double()
            case "details": details = try cursor.stringDictionary()
            default: try cursor.skipValue()
            }
        }
        return ReportFinding(
            id: try required(id), kind: try required(kind), severity: try required(severity), message: try required(message),
            label: label, resourceKind: resourceKind, test: test, fingerprint: try required(fingerprint),
            policy: try required(policy), suppressedBy: suppressedBy, allocationStack: allocation, eventStack: event,
            relatedStack: related, thread: thread, otherThread: otherThread, time: try required(time),
            details: try required(details))
    }

    mutating func stringDictionary() throws -> [String: String] {
        var dictionary: [String: String] = [:]
        try object { cursor, key in dictionary[key] = try cursor.string() }
        return dictionary
    }

    mutating func thread() throws -> ReportThread {
        var id: UInt64?, name: String?, isMainQueue: Bool?
        try object { cursor, key in
            switch key {
            case "id": id = try cursor.uint64()
            case "name": name = try cursor.optional { try $0.string() }
            case "isMainQueue": isMainQueue = try cursor.bool()
            default: try cursor.skipValue()
            }
        }
        return ReportThread(id: try required(id), name: name, isMainQueue: try required(isMainQueue))
    }

    mutating func ledger() throws -> LedgerSummary {
        var kinds: [KindTotals]?, live: [LiveSite]?
        try object { cursor, key in
            switch key {
            case "kinds": kinds = try cursor.array { try $0.kindTotals() }
            case "liveAtEnd": live = try cursor.array { try $0.liveSite() }
            default: try cursor.skipValue()
            }
        }
        return LedgerSummary(kinds: try required(kinds), liveAtEnd: try required(live))
    }

    mutating func kindTotals() throws -> KindTotals {
        var kind: String?, registered: Int?, peak: Int?, live: Int?
        try object { cursor, key in
            switch key {
            case "kind": kind = try cursor.string()
            case "registered": registered = try cursor.int()
            case "peak": peak = try cursor.int()
            case "live": live = try cursor.int()
            default: try cursor.skipValue()
            }
        }
        return KindTotals(kind: try required(kind), registered: try required(registered), peak: try required(peak), live: try required(live))
    }

    mutating func liveSite() throws -> LiveSite {
        var kind: String?, label: String?, stack: Int?, count: Int?, tests: [String]?
        try object { cursor, key in
            switch key {
            case "kind": kind = try cursor.string()
            case "label": label = try cursor.string()
            case "stack": stack = try cursor.optional { try $0.int() }
            case "count": count = try cursor.int()
            case "tests": tests = try cursor.array { try $0.string() }
            default: try cursor.skipValue()
            }
        }
        return LiveSite(kind: try required(kind), label: try required(label), stack: stack, count: try required(count),
                        tests: try required(tests))
    }

    mutating func scheduler() throws -> SchedulerSummary {
        var label: String?, counts: [String: Int] = [:], expectation: String?, latency: LatencySummary?
        var duration: LatencySummary?, threads: [ThreadCount]?
        try object { cursor, key in
            switch key {
            case "label": label = try cursor.string()
            case "scheduled", "executed", "cancelled", "pending", "activeRepeating", "longActions", "threadViolations":
                counts[key] = try cursor.int()
            case "expectation": expectation = try cursor.optional { try $0.string() }
            case "latency": latency = try cursor.latency()
            case "duration": duration = try cursor.latency()
            case "threads": threads = try cursor.array { try $0.threadCount() }
            default: try cursor.skipValue()
            }
        }
        guard counts.count == 7 else { throw Unsupported() }
        return SchedulerSummary(
            label: try required(label), scheduled: try required(counts["scheduled"]), executed: try required(counts["executed"]),
            cancelled: try required(counts["cancelled"]), pending: try required(counts["pending"]),
            activeRepeating: try required(counts["activeRepeating"]), longActions: try required(counts["longActions"]),
            threadViolations: try required(counts["threadViolations"]), expectation: expectation,
            latency: try required(latency), duration: try required(duration), threads: try required(threads))
    }

    mutating func latency() throws -> LatencySummary {
        var count: Int?, nanos: [String: UInt64] = [:], mean: Double?, buckets: [HistogramBucket]?
        try object { cursor, key in
            switch key {
            case "count": count = try cursor.int()
            case "minNanos", "maxNanos", "p50Nanos", "p90Nanos", "p99Nanos": nanos[key] = try cursor.uint64()
            case "meanNanos": mean = try cursor.double()
            case "buckets": buckets = try cursor.array { try $0.bucket() }
            default: try cursor.skipValue()
            }
        }
        guard nanos.count == 5 else { throw Unsupported() }
        return LatencySummary(
            count: try required(count), minNanos: try required(nanos["minNanos"]), maxNanos: try required(nanos["maxNanos"]),
            meanNanos: try required(mean), p50Nanos: try required(nanos["p50Nanos"]), p90Nanos: try required(nanos["p90Nanos"]),
            p99Nanos: try required(nanos["p99Nanos"]), buckets: try required(buckets))
    }

    mutating func bucket() throws -> HistogramBucket {
        var lower: UInt64?, upper: UInt64?, count: Int?
        try object { cursor, key in
            switch key {
            case "lowerNanos": lower = try cursor.uint64()
            case "upperNanos": upper = try cursor.uint64()
            case "count": count = try cursor.int()
            default: try cursor.skipValue()
            }
        }
        return HistogramBucket(lowerNanos: try required(lower), upperNanos: try required(upper), count: try required(count))
    }

    mutating func threadCount() throws -> ThreadCount {
        var thread: String?, isMainQueue: Bool?, count: Int?
        try object { cursor, key in
            switch key {
            case "thread": thread = try cursor.string()
            case "isMainQueue": isMainQueue = try cursor.bool()
            case "count": count = try cursor.int()
            default: try cursor.skipValue()
            }
        }
        return ThreadCount(thread: try required(thread), isMainQueue: try required(isMainQueue), count: try required(count))
    }

    mutating func stack() throws -> ReportStack {
        var id: Int?, frames: [ReportFrame]?, dropped: Int?
        try object { cursor, key in
            switch key {
            case "id": id = try cursor.int()
            case "frames": frames = try cursor.array { try $0.frame() }
            case "droppedFrames": dropped = try cursor.int()
            default: try cursor.skipValue()
            }
        }
        return ReportStack(id: try required(id), frames: try required(frames), droppedFrames: try required(dropped))
    }

    mutating func frame() throws -> ReportFrame {
        var address: String?, image: Int?, offset: String?, symbol: String?, function: String?, module: String?
        var category: FrameCategory?, file: String?, line: Int?, column: Int?
        try object { cursor, key in
            switch key {
            case "address": address = try cursor.string()
            case "image": image = try cursor.optional { try $0.int() }
            case "offset": offset = try cursor.optional { try $0.string() }
            case "symbol": symbol = try cursor.optional { try $0.string() }
            case "function": function = try cursor.optional { try $0.string() }
            case "module": module = try cursor.optional { try $0.string() }
            case "category": category = try required(FrameCategory(rawValue: try cursor.string()))
            case "file": file = try cursor.optional { try $0.string() }
            case "line": line = try cursor.optional { try $0.int() }
            case "column": column = try cursor.optional { try $0.int() }
            default: try cursor.skipValue()
            }
        }
        return ReportFrame(
            address: try required(address), image: image, offset: offset, symbol: symbol, function: function,
            module: module, category: try required(category), file: file, line: line, column: column)
    }

    mutating func image() throws -> ReportImage {
        var id: Int?, path: String?, buildID: String?
        try object { cursor, key in
            switch key {
            case "id": id = try cursor.int()
            case "path": path = try cursor.string()
            case "buildID": buildID = try cursor.optional { try $0.string() }
            default: try cursor.skipValue()
            }
        }
        return ReportImage(id: try required(id), path: try required(path), buildID: buildID)
    }
}
