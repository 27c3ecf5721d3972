import ReactiveDiagnosticsReport

/// Writes the report's single-pass JSON writer and reader from the field tables
/// (`Sources/ReactiveDiagnosticsReport/Fields/ReportFields.swift`): straight-line Swift, one
/// `write(to:)` and one `read(_:)` per object, as a person would write them.
enum ReportCodeGenerator {
    static let header = """
        // Generated from the field tables in Fields/ReportFields.swift by ReportFieldCodeTests:
        // do not edit. After changing a table, run `UPDATE_GENERATED=1 swift test --filter
        // ReportFieldCodeTests` to rewrite this file.

        """

    /// Every object type reachable from `roots`, each once, in the order first met.
    static func objects(from roots: [any ReportObject.Type]) -> [any ReportObject.Type] {
        var found: [any ReportObject.Type] = []
        var seen: Set<ObjectIdentifier> = []
        func visit(_ type: any ReportObject.Type) {
            guard seen.insert(ObjectIdentifier(type)).inserted else { return }
            found.append(type)
            for field in type.fields {
                switch field.value {
                case .object(let nested), .array(let nested): visit(nested)
                default: break
                }
            }
        }
        roots.forEach(visit)
        return found
    }

    /// `RunInfo.Completeness` for `ReactiveDiagnosticsReport.RunInfo.Completeness`.
    static func name(_ type: Any.Type) -> String {
        let full = String(reflecting: type)
        let module = "ReactiveDiagnosticsReport."
        return full.hasPrefix(module) ? String(full.dropFirst(module.count)) : full
    }

    static func swiftType(_ value: FieldValue) -> String {
        switch value {
        case .string: return "String"
        case .int: return "Int"
        case .int32: return "Int32"
        case .uint64: return "UInt64"
        case .double: return "Double"
        case .bool: return "Bool"
        case .date: return "Date"
        case .strings: return "[String]"
        case .stringMap: return "[String: String]"
        case .oneOf(let type): return name(type)
        case .object(let type): return name(type)
        case .array(let type): return "[\(name(type))]"
        }
    }

    // MARK: Writer

    static func writer(_ types: [any ReportObject.Type]) -> String {
        var text = header + "\n"
        for type in types {
            text += "extension \(name(type)) {\n    func write(to w: inout JSONWriter) {\n        w.beginObject()\n"
            for field in type.fields.sorted(by: { $0.key < $1.key }) {
                text += write(field).map { "        " + $0 + "\n" }.joined()
            }
            text += "        w.endObject()\n    }\n}\n\n"
        }
        return String(text.dropLast())
    }

    /// The lines that write `field` (absent optionals omitted).
    static func write(_ field: ReportField) -> [String] {
        let key = field.key
        var lines: [String]
        switch field.value {
        case .string, .int, .uint64, .double, .bool: lines = ["w.field(\"\(key)\", \(key))"]
        case .int32: lines = ["w.field(\"\(key)\", Int(\(key)))"]
        case .date: lines = ["w.field(\"\(key)\", ReportDates.format(\(key)))"]
        case .oneOf: lines = ["w.field(\"\(key)\", \(key).rawValue)"]
        case .strings: lines = ["w.field(\"\(key)\", strings: \(key))"]
        case .stringMap:
            lines = [
                "w.key(\"\(key)\")", "w.beginObject()", "for member in \(key).keys.sorted() {", "    w.key(member)",
                "    w.string(\(key)[member] ?? \"\")", "}", "w.endObject()",
            ]
        case .object: lines = ["w.key(\"\(key)\")", "\(key).write(to: &w)"]
        case .array:
            lines = [
                "w.key(\"\(key)\")", "w.beginArray()", "for element in \(key) {", "    w.element()",
                "    element.write(to: &w)", "}", "w.endArray()",
            ]
        }
        guard field.presence != .required else { return lines }
        return ["if let \(key) {"] + lines.map { "    " + $0 } + ["}"]
    }

    // MARK: Reader

    static func reader(_ types: [any ReportObject.Type]) -> String {
        var text = header + "\nimport Foundation\n\n"
        for type in types {
            let typeName = name(type)
            text += "extension \(typeName) {\n"
            text += "    static func read(_ r: inout JSONReader) throws(JSONReadError) -> \(typeName) {\n"
            for field in type.fields {
                text += "        var \(field.key): \(swiftType(field.value))?\n"
            }
            text += "        try r.beginObject()\n        while let key = try r.nextKey() {\n"
            text += "            r.path.append(key)\n            switch key {\n"
            for field in type.fields {
                text += "            case \"\(field.key)\": \(field.key) = \(read(field))\n"
            }
            text +=
                "            default: try r.skipValue()\n            }\n            r.path.removeLast()\n        }\n"
            let arguments = type.fields.map { field in
                "            \(field.key): "
                    + (field.presence == .required ? "try r.required(\(field.key), \"\(field.key)\")" : field.key)
            }
            text += "        return \(typeName)(\n" + arguments.joined(separator: ",\n") + ")\n    }\n}\n\n"
        }
        return String(text.dropLast())
    }

    /// The expression that reads `field`'s value (`null` as absent for an optional).
    static func read(_ field: ReportField) -> String {
        let value: String
        switch field.value {
        case .string: value = "try r.readString()"
        case .int: value = "try r.readInt()"
        case .int32: value = "try r.readInt32()"
        case .uint64: value = "try r.readUInt64()"
        case .double: value = "try r.readDouble()"
        case .bool: value = "try r.readBool()"
        case .date: value = "try r.readDate()"
        case .strings: value = "try r.readStrings()"
        case .stringMap: value = "try r.readStringDictionary()"
        case .oneOf(let type): value = "try r.readEnum(\(name(type)).self)"
        case .object(let type):
            if field.presence != .required { return "try r.optional(\(name(type)).read)" }
            value = "try \(name(type)).read(&r)"
        case .array(let type): value = "try r.readArray(\(name(type)).read)"
        }
        guard field.presence != .required else { return value }
        return "try r.optional { (r: inout JSONReader) throws(JSONReadError) in \(value) }"
    }
}
