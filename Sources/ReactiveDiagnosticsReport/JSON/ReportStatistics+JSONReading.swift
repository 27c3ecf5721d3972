// Generated from the field tables in Fields/ReportFields.swift by ReportFieldCodeTests:
// do not edit. After changing a table, run `UPDATE_GENERATED=1 swift test --filter
// ReportFieldCodeTests` to rewrite this file.

import Foundation

extension LedgerSummary {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> LedgerSummary {
        var kinds: [KindTotals]?
        var liveAtEnd: [LiveSite]?
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
        return LedgerSummary(
            kinds: try r.required(kinds, "kinds"),
            liveAtEnd: try r.required(liveAtEnd, "liveAtEnd"))
    }
}

extension KindTotals {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> KindTotals {
        var kind: String?
        var registered: Int?
        var peak: Int?
        var live: Int?
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
            kind: try r.required(kind, "kind"),
            registered: try r.required(registered, "registered"),
            peak: try r.required(peak, "peak"),
            live: try r.required(live, "live"))
    }
}

extension LiveSite {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> LiveSite {
        var kind: String?
        var label: String?
        var stack: Int?
        var count: Int?
        var tests: [String]?
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
            kind: try r.required(kind, "kind"),
            label: try r.required(label, "label"),
            stack: stack,
            count: try r.required(count, "count"),
            tests: try r.required(tests, "tests"))
    }
}

extension SchedulerSummary {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> SchedulerSummary {
        var label: String?
        var scheduled: Int?
        var executed: Int?
        var cancelled: Int?
        var pending: Int?
        var activeRepeating: Int?
        var longActions: Int?
        var threadViolations: Int?
        var expectation: String?
        var latency: LatencySummary?
        var duration: LatencySummary?
        var threads: [ThreadCount]?
        var instances: Int?
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
            case "instances": instances = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return SchedulerSummary(
            label: try r.required(label, "label"),
            scheduled: try r.required(scheduled, "scheduled"),
            executed: try r.required(executed, "executed"),
            cancelled: try r.required(cancelled, "cancelled"),
            pending: try r.required(pending, "pending"),
            activeRepeating: try r.required(activeRepeating, "activeRepeating"),
            longActions: try r.required(longActions, "longActions"),
            threadViolations: try r.required(threadViolations, "threadViolations"),
            expectation: expectation,
            latency: try r.required(latency, "latency"),
            duration: try r.required(duration, "duration"),
            threads: try r.required(threads, "threads"),
            instances: instances)
    }
}

extension LatencySummary {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> LatencySummary {
        var count: Int?
        var minNanos: UInt64?
        var maxNanos: UInt64?
        var meanNanos: Double?
        var p50Nanos: UInt64?
        var p90Nanos: UInt64?
        var p99Nanos: UInt64?
        var buckets: [HistogramBucket]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "count": count = try r.readInt()
            case "minNanos": minNanos = try r.readUInt64()
            case "maxNanos": maxNanos = try r.readUInt64()
            case "meanNanos": meanNanos = try r.readDouble()
            case "p50Nanos": p50Nanos = try r.readUInt64()
            case "p90Nanos": p90Nanos = try r.readUInt64()
            case "p99Nanos": p99Nanos = try r.readUInt64()
            case "buckets": buckets = try r.readArray(HistogramBucket.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return LatencySummary(
            count: try r.required(count, "count"),
            minNanos: try r.required(minNanos, "minNanos"),
            maxNanos: try r.required(maxNanos, "maxNanos"),
            meanNanos: try r.required(meanNanos, "meanNanos"),
            p50Nanos: try r.required(p50Nanos, "p50Nanos"),
            p90Nanos: try r.required(p90Nanos, "p90Nanos"),
            p99Nanos: try r.required(p99Nanos, "p99Nanos"),
            buckets: try r.required(buckets, "buckets"))
    }
}

extension HistogramBucket {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> HistogramBucket {
        var lowerNanos: UInt64?
        var upperNanos: UInt64?
        var count: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "lowerNanos": lowerNanos = try r.readUInt64()
            case "upperNanos": upperNanos = try r.readUInt64()
            case "count": count = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return HistogramBucket(
            lowerNanos: try r.required(lowerNanos, "lowerNanos"),
            upperNanos: try r.required(upperNanos, "upperNanos"),
            count: try r.required(count, "count"))
    }
}

extension ThreadCount {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ThreadCount {
        var thread: String?
        var isMainQueue: Bool?
        var count: Int?
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
            thread: try r.required(thread, "thread"),
            isMainQueue: try r.required(isMainQueue, "isMainQueue"),
            count: try r.required(count, "count"))
    }
}
