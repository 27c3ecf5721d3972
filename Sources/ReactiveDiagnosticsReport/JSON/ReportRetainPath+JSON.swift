// The retain path of a leaked subscription in the report's single-pass JSON reader and
// writer (keys in sorted order, like the `Codable` encoding with `.sortedKeys`).

extension ReportRetainPath {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("cycle")
        w.beginArray()
        for step in cycle {
            w.element()
            step.write(to: &w)
        }
        w.endArray()
        w.key("heldBy")
        w.beginArray()
        for step in heldBy {
            w.element()
            step.write(to: &w)
        }
        w.endArray()
        w.field("holder", holder)
        w.key("holds")
        w.beginArray()
        for hold in holds {
            w.element()
            hold.write(to: &w)
        }
        w.endArray()
        w.field("milliseconds", milliseconds)
        w.field("notes", strings: notes)
        w.field("objectsVisited", objectsVisited)
        w.field("verdict", verdict.rawValue)
        w.endObject()
    }

    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainPath {
        var verdict: Verdict?, cycle: [ReportRetainStep]?, holds: [ReportRetainHold]?, holder: String?
        var heldBy: [ReportRetainStep] = []
        var notes: [String]?, objects: Int?, milliseconds: Double?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "verdict": verdict = try r.readEnum(Verdict.self)
            case "cycle": cycle = try r.readArray(ReportRetainStep.read)
            case "holds": holds = try r.readArray(ReportRetainHold.read)
            case "heldBy": heldBy = try r.readArray(ReportRetainStep.read)
            case "holder": holder = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "notes": notes = try r.readStrings()
            case "objectsVisited": objects = try r.readInt()
            case "milliseconds": milliseconds = try r.readDouble()
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportRetainPath(
            verdict: try r.required(verdict, "verdict"), cycle: try r.required(cycle, "cycle"),
            holds: try r.required(holds, "holds"), holder: holder, heldBy: heldBy, notes: try r.required(notes, "notes"),
            objectsVisited: try r.required(objects, "objectsVisited"),
            milliseconds: try r.required(milliseconds, "milliseconds"))
    }
}

extension ReportRetainStep {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("category", category.rawValue)
        w.field("isSubscription", isSubscription)
        ReportRetainLink.write(links, to: &w)
        w.field("module", module)
        w.field("type", type)
        w.endObject()
    }

    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainStep {
        var type: String?, module: String?, category: FrameCategory?, isSubscription: Bool?
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
            type: try r.required(type, "type"), module: module, category: try r.required(category, "category"),
            isSubscription: try r.required(isSubscription, "isSubscription"), links: try r.required(links, "links"))
    }
}

extension ReportRetainLink {
    static func write(_ links: [ReportRetainLink], to w: inout JSONWriter) {
        w.key("links")
        w.beginArray()
        for link in links {
            w.element()
            link.write(to: &w)
        }
        w.endArray()
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let closure {
            w.key("closure")
            closure.write(to: &w)
        }
        w.field("kind", kind.rawValue)
        w.field("name", name)
        w.field("strength", strength?.rawValue)
        w.field("type", type)
        w.endObject()
    }

    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainLink {
        var kind: Kind?, name: String?, type: String?, closure: ReportClosure?, strength: ReportReferenceStrength?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "kind": kind = try r.readEnum(Kind.self)
            case "name": name = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "type": type = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "closure": closure = try r.optional(ReportClosure.read)
            case "strength":
                strength = try r.optional { (r: inout JSONReader) throws(JSONReadError) in
                    try r.readEnum(ReportReferenceStrength.self)
                }
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportRetainLink(kind: try r.required(kind, "kind"), name: name, type: type, closure: closure, strength: strength)
    }
}

extension ReportClosure {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("category", category.rawValue)
        w.field("column", column)
        w.field("file", file)
        w.field("function", function)
        w.field("line", line)
        w.endObject()
    }

    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportClosure {
        var function: String?, file: String?, line: Int?, column: Int?, category: FrameCategory?
        try r.beginObject()
        while let key = try r.nextKey() {
            r.path.append(key)
            switch key {
            case "function": function = try r.readString()
            case "file": file = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readString() }
            case "line": line = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "column": column = try r.optional { (r: inout JSONReader) throws(JSONReadError) in try r.readInt() }
            case "category": category = try r.readEnum(FrameCategory.self)
            default: try r.skipValue()
            }
            r.path.removeLast()
        }
        return ReportClosure(
            function: try r.required(function, "function"), file: file, line: line, column: column,
            category: try r.required(category, "category"))
    }
}

extension ReportRetainHold {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("from", from)
        ReportRetainLink.write(links, to: &w)
        w.field("strength", strength.rawValue)
        w.field("type", type)
        w.endObject()
    }

    static func read(_ r: inout JSONReader) throws(JSONReadError) -> ReportRetainHold {
        var from: String?, links: [ReportRetainLink]?, type: String?, strength: ReportReferenceStrength?
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
            from: try r.required(from, "from"), links: try r.required(links, "links"), type: try r.required(type, "type"),
            strength: try r.required(strength, "strength"))
    }
}
