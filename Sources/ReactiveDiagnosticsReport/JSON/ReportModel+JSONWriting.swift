// Hand-written writers for every report type. Keys are written in sorted order, matching
// the Codable encoding with `.sortedKeys`; absent optionals are omitted, as Codable does.

extension DiagnosticsReport {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("droppedFindings", droppedFindings)
        w.key("findings")
        w.beginArray()
        for finding in findings {
            w.element()
            finding.write(to: &w)
        }
        w.endArray()
        w.key("images")
        w.beginArray()
        for image in images {
            w.element()
            image.write(to: &w)
        }
        w.endArray()
        w.key("ledger")
        ledger.write(to: &w)
        w.key("run")
        run.write(to: &w)
        w.key("schedulers")
        w.beginArray()
        for scheduler in schedulers {
            w.element()
            scheduler.write(to: &w)
        }
        w.endArray()
        w.field("schemaVersion", schemaVersion)
        if let sourceLines {
            w.key("sourceLines")
            sourceLines.write(to: &w)
        }
        w.key("stacks")
        w.beginArray()
        for stack in stacks {
            w.element()
            stack.write(to: &w)
        }
        w.endArray()
        w.key("tool")
        w.beginObject()
        w.field("name", tool.name)
        w.field("version", tool.version)
        w.endObject()
        w.endObject()
    }
}

extension RunInfo {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("arguments", strings: arguments)
        w.field("completeness", completeness.rawValue)
        w.field("endTime", ReportDates.format(endTime))
        w.field("executable", executable)
        w.field("hostName", hostName)
        w.field("platform", platform)
        w.field("processCount", processCount)
        w.field("processID", Int(processID))
        w.field("processName", processName)
        w.field("startTime", ReportDates.format(startTime))
        w.key("tests")
        w.beginArray()
        for test in tests {
            w.element()
            w.beginObject()
            w.field("failed", test.failed)
            w.field("findings", test.findings)
            w.field("name", test.name)
            w.endObject()
        }
        w.endArray()
        w.field("toolchain", toolchain)
        w.field("workingDirectory", workingDirectory)
        w.endObject()
    }
}

extension ReportFinding {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("allocationStack", allocationStack)
        w.key("details")
        w.beginObject()
        for key in details.keys.sorted() {
            w.key(key)
            w.string(details[key]!)
        }
        w.endObject()
        w.field("eventStack", eventStack)
        w.field("fingerprint", fingerprint)
        w.field("id", id)
        w.field("kind", kind)
        w.field("label", label)
        w.field("message", message)
        if let otherThread {
            w.key("otherThread")
            otherThread.write(to: &w)
        }
        w.field("policy", policy)
        w.field("relatedStack", relatedStack)
        w.field("resourceKind", resourceKind)
        w.field("severity", severity.rawValue)
        w.field("suppressedBy", suppressedBy)
        w.field("test", test)
        if let thread {
            w.key("thread")
            thread.write(to: &w)
        }
        w.field("time", time)
        w.endObject()
    }
}

extension ReportThread {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("id", id)
        w.field("isMainQueue", isMainQueue)
        w.field("name", name)
        w.field("queue", queue)
        w.endObject()
    }
}

extension LedgerSummary {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("kinds")
        w.beginArray()
        for totals in kinds {
            w.element()
            w.beginObject()
            w.field("kind", totals.kind)
            w.field("live", totals.live)
            w.field("peak", totals.peak)
            w.field("registered", totals.registered)
            w.endObject()
        }
        w.endArray()
        w.key("liveAtEnd")
        w.beginArray()
        for site in liveAtEnd {
            w.element()
            w.beginObject()
            w.field("count", site.count)
            w.field("kind", site.kind)
            w.field("label", site.label)
            w.field("stack", site.stack)
            w.field("tests", strings: site.tests)
            w.endObject()
        }
        w.endArray()
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
        w.field("expectation", expectation)
        w.field("label", label)
        w.key("latency")
        latency.write(to: &w)
        w.field("longActions", longActions)
        w.field("pending", pending)
        w.field("scheduled", scheduled)
        w.field("threadViolations", threadViolations)
        w.key("threads")
        w.beginArray()
        for thread in threads {
            w.element()
            w.beginObject()
            w.field("count", thread.count)
            w.field("isMainQueue", thread.isMainQueue)
            w.field("thread", thread.thread)
            w.endObject()
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
        for bucket in buckets {
            w.element()
            w.beginObject()
            w.field("count", bucket.count)
            w.field("lowerNanos", bucket.lowerNanos)
            w.field("upperNanos", bucket.upperNanos)
            w.endObject()
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

extension ReportStack {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("droppedFrames", droppedFrames)
        w.key("frames")
        w.beginArray()
        for frame in frames {
            w.element()
            frame.write(to: &w)
        }
        w.endArray()
        w.field("id", id)
        w.endObject()
    }
}

extension ReportFrame {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("address", address)
        w.field("category", category.rawValue)
        w.field("column", column)
        w.field("file", file)
        w.field("function", function)
        w.field("image", image)
        w.field("line", line)
        w.field("module", module)
        w.field("offset", offset)
        w.field("symbol", symbol)
        w.endObject()
    }
}

extension ReportImage {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("buildID", buildID)
        w.field("id", id)
        w.field("path", path)
        w.endObject()
    }
}

extension SourceLineStatus {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("reason", reason)
        w.field("resolvedUserFrames", resolvedUserFrames)
        w.field("resolver", resolver)
        w.field("state", state.rawValue)
        w.field("userFrames", userFrames)
        w.endObject()
    }
}
