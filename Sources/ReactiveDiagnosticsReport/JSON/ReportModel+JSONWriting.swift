// Generated from the field tables in Fields/ReportFields.swift by ReportFieldCodeTests:
// do not edit. After changing a table, run `UPDATE_GENERATED=1 swift test --filter
// ReportFieldCodeTests` to rewrite this file.

extension DiagnosticsReport {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("droppedFindings", droppedFindings)
        w.key("findings")
        w.beginArray()
        for element in findings {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.key("images")
        w.beginArray()
        for element in images {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.key("ledger")
        ledger.write(to: &w)
        w.key("run")
        run.write(to: &w)
        w.key("schedulers")
        w.beginArray()
        for element in schedulers {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.field("schemaVersion", schemaVersion)
        if let sourceLines {
            w.key("sourceLines")
            sourceLines.write(to: &w)
        }
        w.key("stacks")
        w.beginArray()
        for element in stacks {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.key("tool")
        tool.write(to: &w)
        w.endObject()
    }
}

extension ToolInfo {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("name", name)
        w.field("version", version)
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
        for element in tests {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.field("toolchain", toolchain)
        w.field("workingDirectory", workingDirectory)
        w.endObject()
    }
}

extension TestRecord {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("failed", failed)
        w.field("findings", findings)
        w.field("name", name)
        w.endObject()
    }
}

extension ReportFinding {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let allocationStack {
            w.field("allocationStack", allocationStack)
        }
        if let chain {
            w.key("chain")
            w.beginArray()
            for element in chain {
                w.element()
                element.write(to: &w)
            }
            w.endArray()
        }
        w.key("details")
        w.beginObject()
        for member in details.keys.sorted() {
            w.key(member)
            w.string(details[member] ?? "")
        }
        w.endObject()
        if let eventStack {
            w.field("eventStack", eventStack)
        }
        w.field("fingerprint", fingerprint)
        w.field("id", id)
        w.field("kind", kind)
        if let label {
            w.field("label", label)
        }
        w.field("message", message)
        if let otherThread {
            w.key("otherThread")
            otherThread.write(to: &w)
        }
        w.field("policy", policy)
        if let relatedStack {
            w.field("relatedStack", relatedStack)
        }
        if let resourceKind {
            w.field("resourceKind", resourceKind)
        }
        if let retainPath {
            w.key("retainPath")
            retainPath.write(to: &w)
        }
        w.field("severity", severity.rawValue)
        if let suppressedBy {
            w.field("suppressedBy", suppressedBy)
        }
        if let test {
            w.field("test", test)
        }
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
        if let name {
            w.field("name", name)
        }
        if let queue {
            w.field("queue", queue)
        }
        w.endObject()
    }
}

extension ReportRetainPath {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("cycle")
        w.beginArray()
        for element in cycle {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.key("heldBy")
        w.beginArray()
        for element in heldBy {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        if let holder {
            w.field("holder", holder)
        }
        w.key("holds")
        w.beginArray()
        for element in holds {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.field("milliseconds", milliseconds)
        w.field("notes", strings: notes)
        w.field("objectsVisited", objectsVisited)
        w.field("verdict", verdict.rawValue)
        w.endObject()
    }
}

extension ReportRetainStep {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("category", category.rawValue)
        w.field("isSubscription", isSubscription)
        w.key("links")
        w.beginArray()
        for element in links {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        if let module {
            w.field("module", module)
        }
        w.field("type", type)
        w.endObject()
    }
}

extension ReportRetainLink {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let closure {
            w.key("closure")
            closure.write(to: &w)
        }
        w.field("kind", kind.rawValue)
        if let name {
            w.field("name", name)
        }
        if let strength {
            w.field("strength", strength.rawValue)
        }
        if let type {
            w.field("type", type)
        }
        w.endObject()
    }
}

extension ReportClosure {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("category", category.rawValue)
        if let column {
            w.field("column", column)
        }
        if let file {
            w.field("file", file)
        }
        w.field("function", function)
        if let line {
            w.field("line", line)
        }
        if let sourceText {
            w.field("sourceText", sourceText)
        }
        w.endObject()
    }
}

extension ReportRetainHold {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("from", from)
        w.key("links")
        w.beginArray()
        for element in links {
            w.element()
            element.write(to: &w)
        }
        w.endArray()
        w.field("strength", strength.rawValue)
        w.field("type", type)
        w.endObject()
    }
}

extension ReportChainStage {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let allocationStack {
            w.field("allocationStack", allocationStack)
        }
        w.field("fingerprint", fingerprint)
        if let innerOf {
            w.field("innerOf", innerOf)
        }
        w.field("isCause", isCause)
        if let label {
            w.field("label", label)
        }
        w.field("resourceKind", resourceKind)
        w.endObject()
    }
}

extension ReportStack {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("droppedFrames", droppedFrames)
        w.key("frames")
        w.beginArray()
        for element in frames {
            w.element()
            element.write(to: &w)
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
        if let column {
            w.field("column", column)
        }
        if let file {
            w.field("file", file)
        }
        if let function {
            w.field("function", function)
        }
        if let image {
            w.field("image", image)
        }
        if let line {
            w.field("line", line)
        }
        if let module {
            w.field("module", module)
        }
        if let offset {
            w.field("offset", offset)
        }
        if let symbol {
            w.field("symbol", symbol)
        }
        w.endObject()
    }
}

extension ReportImage {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let buildID {
            w.field("buildID", buildID)
        }
        w.field("id", id)
        w.field("path", path)
        w.endObject()
    }
}

extension SourceLineStatus {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let reason {
            w.field("reason", reason)
        }
        w.field("resolvedUserFrames", resolvedUserFrames)
        if let resolver {
            w.field("resolver", resolver)
        }
        w.field("state", state.rawValue)
        w.field("userFrames", userFrames)
        w.endObject()
    }
}

extension FindingUpdate {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let fingerprint {
            w.field("fingerprint", fingerprint)
        }
        w.field("id", id)
        if let otherThread {
            w.key("otherThread")
            otherThread.write(to: &w)
        }
        if let relatedStack {
            w.field("relatedStack", relatedStack)
        }
        w.endObject()
    }
}
