// Generated from the field tables in Fields/ReportFields.swift by ReportFieldCodeTests:
// do not edit. After changing a table, run `UPDATE_GENERATED=1 swift test --filter
// ReportFieldCodeTests` to rewrite this file.

import Foundation

extension DiagnosticsReport {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> DiagnosticsReport {
        var schemaVersion: Int?
        var tool: ToolInfo?
        var run: RunInfo?
        var findings: [ReportFinding]?
        var ledger: LedgerSummary?
        var schedulers: [SchedulerSummary]?
        var stacks: [ReportStack]?
        var images: [ReportImage]?
        var droppedFindings: Int?
        var sourceLines: SourceLineStatus?
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
            case "droppedFindings": droppedFindings = try r.readInt()
            case "sourceLines": sourceLines = try r.optional(SourceLineStatus.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return DiagnosticsReport(
            schemaVersion: try r.required(schemaVersion, "schemaVersion"),
            tool: try r.required(tool, "tool"),
            run: try r.required(run, "run"),
            findings: try r.required(findings, "findings"),
            ledger: try r.required(ledger, "ledger"),
            schedulers: try r.required(schedulers, "schedulers"),
            stacks: try r.required(stacks, "stacks"),
            images: try r.required(images, "images"),
            droppedFindings: try r.required(droppedFindings, "droppedFindings"),
            sourceLines: sourceLines)
    }
}

extension ToolInfo {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ToolInfo {
        var name: String?
        var version: String?
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
        return ToolInfo(
            name: try r.required(name, "name"),
            version: try r.required(version, "version"))
    }
}

extension RunInfo {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> RunInfo {
        var processName: String?
        var processID: Int32?
        var arguments: [String]?
        var executable: String?
        var workingDirectory: String?
        var hostName: String?
        var platform: String?
        var toolchain: String?
        var startTime: Date?
        var endTime: Date?
        var completeness: RunInfo.Completeness?
        var tests: [TestRecord]?
        var processCount: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "processName": processName = try r.readString()
            case "processID": processID = try r.readInt32()
            case "arguments": arguments = try r.readStrings()
            case "executable": executable = try r.readString()
            case "workingDirectory": workingDirectory = try r.readString()
            case "hostName": hostName = try r.readString()
            case "platform": platform = try r.readString()
            case "toolchain": toolchain = try r.readString()
            case "startTime": startTime = try r.readDate()
            case "endTime": endTime = try r.readDate()
            case "completeness": completeness = try r.readEnum(RunInfo.Completeness.self)
            case "tests": tests = try r.readArray(TestRecord.read)
            case "processCount": processCount = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return RunInfo(
            processName: try r.required(processName, "processName"),
            processID: try r.required(processID, "processID"),
            arguments: try r.required(arguments, "arguments"),
            executable: try r.required(executable, "executable"),
            workingDirectory: try r.required(workingDirectory, "workingDirectory"),
            hostName: try r.required(hostName, "hostName"),
            platform: try r.required(platform, "platform"),
            toolchain: try r.required(toolchain, "toolchain"),
            startTime: try r.required(startTime, "startTime"),
            endTime: try r.required(endTime, "endTime"),
            completeness: try r.required(completeness, "completeness"),
            tests: try r.required(tests, "tests"),
            processCount: try r.required(processCount, "processCount"))
    }
}

extension TestRecord {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> TestRecord {
        var name: String?
        var findings: Int?
        var failed: Bool?
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
            name: try r.required(name, "name"),
            findings: try r.required(findings, "findings"),
            failed: try r.required(failed, "failed"))
    }
}

extension ReportFinding {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportFinding {
        var id: Int?
        var kind: String?
        var severity: ReportSeverity?
        var message: String?
        var label: String?
        var resourceKind: String?
        var test: String?
        var fingerprint: String?
        var policy: String?
        var suppressedBy: String?
        var allocationStack: Int?
        var eventStack: Int?
        var relatedStack: Int?
        var thread: ReportThread?
        var otherThread: ReportThread?
        var time: Double?
        var details: [String: String]?
        var retainPath: ReportRetainPath?
        var chain: [ReportChainStage]?
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
            case "retainPath": retainPath = try r.optional(ReportRetainPath.read)
            case "chain": chain = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readArray(ReportChainStage.read) }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportFinding(
            id: try r.required(id, "id"),
            kind: try r.required(kind, "kind"),
            severity: try r.required(severity, "severity"),
            message: try r.required(message, "message"),
            label: label,
            resourceKind: resourceKind,
            test: test,
            fingerprint: try r.required(fingerprint, "fingerprint"),
            policy: try r.required(policy, "policy"),
            suppressedBy: suppressedBy,
            allocationStack: allocationStack,
            eventStack: eventStack,
            relatedStack: relatedStack,
            thread: thread,
            otherThread: otherThread,
            time: try r.required(time, "time"),
            details: try r.required(details, "details"),
            retainPath: retainPath,
            chain: chain)
    }
}

extension ReportThread {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportThread {
        var id: UInt64?
        var name: String?
        var queue: String?
        var isMainQueue: Bool?
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
            id: try r.required(id, "id"),
            name: name,
            queue: queue,
            isMainQueue: try r.required(isMainQueue, "isMainQueue"))
    }
}

extension ReportRetainPath {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainPath {
        var verdict: ReportRetainPath.Verdict?
        var cycle: [ReportRetainStep]?
        var holds: [ReportRetainHold]?
        var holder: String?
        var heldBy: [ReportRetainStep]?
        var notes: [String]?
        var objectsVisited: Int?
        var milliseconds: Double?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "verdict": verdict = try r.readEnum(ReportRetainPath.Verdict.self)
            case "cycle": cycle = try r.readArray(ReportRetainStep.read)
            case "holds": holds = try r.readArray(ReportRetainHold.read)
            case "holder": holder = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "heldBy": heldBy = try r.readArray(ReportRetainStep.read)
            case "notes": notes = try r.readStrings()
            case "objectsVisited": objectsVisited = try r.readInt()
            case "milliseconds": milliseconds = try r.readDouble()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportRetainPath(
            verdict: try r.required(verdict, "verdict"),
            cycle: try r.required(cycle, "cycle"),
            holds: try r.required(holds, "holds"),
            holder: holder,
            heldBy: try r.required(heldBy, "heldBy"),
            notes: try r.required(notes, "notes"),
            objectsVisited: try r.required(objectsVisited, "objectsVisited"),
            milliseconds: try r.required(milliseconds, "milliseconds"))
    }
}

extension ReportRetainStep {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainStep {
        var type: String?
        var module: String?
        var category: FrameCategory?
        var isSubscription: Bool?
        var links: [ReportRetainLink]?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "type": type = try r.readString()
            case "module": module = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "category": category = try r.readEnum(FrameCategory.self)
            case "isSubscription": isSubscription = try r.readBool()
            case "links": links = try r.readArray(ReportRetainLink.read)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportRetainStep(
            type: try r.required(type, "type"),
            module: module,
            category: try r.required(category, "category"),
            isSubscription: try r.required(isSubscription, "isSubscription"),
            links: try r.required(links, "links"))
    }
}

extension ReportRetainLink {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainLink {
        var kind: ReportRetainLink.Kind?
        var name: String?
        var type: String?
        var closure: ReportClosure?
        var strength: ReportReferenceStrength?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "kind": kind = try r.readEnum(ReportRetainLink.Kind.self)
            case "name": name = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "type": type = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "closure": closure = try r.optional(ReportClosure.read)
            case "strength": strength = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readEnum(ReportReferenceStrength.self) }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportRetainLink(
            kind: try r.required(kind, "kind"),
            name: name,
            type: type,
            closure: closure,
            strength: strength)
    }
}

extension ReportClosure {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportClosure {
        var function: String?
        var file: String?
        var line: Int?
        var column: Int?
        var category: FrameCategory?
        var sourceText: String?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "function": function = try r.readString()
            case "file": file = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "line": line = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "column": column = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "category": category = try r.readEnum(FrameCategory.self)
            case "sourceText": sourceText = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportClosure(
            function: try r.required(function, "function"),
            file: file,
            line: line,
            column: column,
            category: try r.required(category, "category"),
            sourceText: sourceText)
    }
}

extension ReportRetainHold {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainHold {
        var from: String?
        var links: [ReportRetainLink]?
        var type: String?
        var strength: ReportReferenceStrength?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "from": from = try r.readString()
            case "links": links = try r.readArray(ReportRetainLink.read)
            case "type": type = try r.readString()
            case "strength": strength = try r.readEnum(ReportReferenceStrength.self)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportRetainHold(
            from: try r.required(from, "from"),
            links: try r.required(links, "links"),
            type: try r.required(type, "type"),
            strength: try r.required(strength, "strength"))
    }
}

extension ReportChainStage {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportChainStage {
        var label: String?
        var resourceKind: String?
        var allocationStack: Int?
        var fingerprint: String?
        var innerOf: String?
        var isCause: Bool?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "label": label = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "resourceKind": resourceKind = try r.readString()
            case "allocationStack": allocationStack = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "fingerprint": fingerprint = try r.readString()
            case "innerOf": innerOf = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "isCause": isCause = try r.readBool()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportChainStage(
            label: label,
            resourceKind: try r.required(resourceKind, "resourceKind"),
            allocationStack: allocationStack,
            fingerprint: try r.required(fingerprint, "fingerprint"),
            innerOf: innerOf,
            isCause: try r.required(isCause, "isCause"))
    }
}

extension ReportStack {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportStack {
        var id: Int?
        var frames: [ReportFrame]?
        var droppedFrames: Int?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "id": id = try r.readInt()
            case "frames": frames = try r.readArray(ReportFrame.read)
            case "droppedFrames": droppedFrames = try r.readInt()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportStack(
            id: try r.required(id, "id"),
            frames: try r.required(frames, "frames"),
            droppedFrames: try r.required(droppedFrames, "droppedFrames"))
    }
}

extension ReportFrame {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportFrame {
        var address: String?
        var image: Int?
        var offset: String?
        var symbol: String?
        var function: String?
        var module: String?
        var category: FrameCategory?
        var file: String?
        var line: Int?
        var column: Int?
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
            address: try r.required(address, "address"),
            image: image,
            offset: offset,
            symbol: symbol,
            function: function,
            module: module,
            category: try r.required(category, "category"),
            file: file,
            line: line,
            column: column)
    }
}

extension ReportImage {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportImage {
        var id: Int?
        var path: String?
        var buildID: String?
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
        return ReportImage(
            id: try r.required(id, "id"),
            path: try r.required(path, "path"),
            buildID: buildID)
    }
}

extension SourceLineStatus {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> SourceLineStatus {
        var state: SourceLineStatus.State?
        var userFrames: Int?
        var resolvedUserFrames: Int?
        var resolver: String?
        var reason: String?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "state": state = try r.readEnum(SourceLineStatus.State.self)
            case "userFrames": userFrames = try r.readInt()
            case "resolvedUserFrames": resolvedUserFrames = try r.readInt()
            case "resolver": resolver = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "reason": reason = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return SourceLineStatus(
            state: try r.required(state, "state"),
            userFrames: try r.required(userFrames, "userFrames"),
            resolvedUserFrames: try r.required(resolvedUserFrames, "resolvedUserFrames"),
            resolver: resolver,
            reason: reason)
    }
}

extension FindingUpdate {
    static func read(_ r: inout JSONReader) throws(JSONReadError) -> FindingUpdate {
        var id: Int?
        var relatedStack: Int?
        var otherThread: ReportThread?
        var fingerprint: String?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "id": id = try r.readInt()
            case "relatedStack": relatedStack = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "otherThread": otherThread = try r.optional(ReportThread.read)
            case "fingerprint": fingerprint = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return FindingUpdate(
            id: try r.required(id, "id"),
            relatedStack: relatedStack,
            otherThread: otherThread,
            fingerprint: fingerprint)
    }
}
