// Generated from the field tables in Fields/ReportFields.swift by ReportFieldCodeTests:
// do not edit. After changing a table, run `UPDATE_GENERATED=1 swift test --filter
// ReportFieldCodeTests` to rewrite this file.

extension LedgerSummary {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("kinds")
        w.beginArray()
        for element in kinds {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.key("liveAtEnd")
        w.beginArray()
        for element in liveAtEnd {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.endObject()
    }
}

extension KindTotals {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("kind", kind)
        w.field("live", live)
        w.field("peak", peak)
        w.field("registered", registered)
        w.endObject()
    }
}

extension LiveSite {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("count", count)
        w.field("kind", kind)
        w.field("label", label)
        if let stack {
            w.field("stack", stack)
        }
        w.field("tests", strings: tests)
        w.endObject()
    }
}

extension SchedulerSummary {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("activeRepeating", activeRepeating)
        w.field("cancelled", cancelled)
        w.key("duration")
        duration.write(to: &w)
        w.field("executed", executed)
        if let expectation {
            w.field("expectation", expectation)
        }
        if let instances {
            w.field("instances", instances)
        }
        w.field("label", label)
        w.key("latency")
        latency.write(to: &w)
        w.field("longActions", longActions)
        w.field("pending", pending)
        w.field("scheduled", scheduled)
        w.field("threadViolations", threadViolations)
        w.key("threads")
        w.beginArray()
        for element in threads {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.endObject()
    }
}

extension LatencySummary {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("buckets")
        w.beginArray()
        for element in buckets {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.field("count", count)
        w.field("maxNanos", maxNanos)
        w.field("meanNanos", meanNanos)
        w.field("minNanos", minNanos)
        w.field("p50Nanos", p50Nanos)
        w.field("p90Nanos", p90Nanos)
        w.field("p99Nanos", p99Nanos)
        w.endObject()
    }
}

extension HistogramBucket {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("count", count)
        w.field("lowerNanos", lowerNanos)
        w.field("upperNanos", upperNanos)
        w.endObject()
    }
}

extension ThreadCount {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("count", count)
        w.field("isMainQueue", isMainQueue)
        w.field("thread", thread)
        w.endObject()
    }
}
