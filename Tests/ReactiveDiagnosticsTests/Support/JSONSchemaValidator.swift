import Foundation

/// A JSON Schema (draft 2020-12) validator for the subset our report schema uses:
/// `type`, `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`,
/// `minimum`, `minLength`, `pattern` and local `$ref`s into `$defs`.
struct JSONSchemaValidator {
    let root: [String: Any]

    init(schema data: Data) throws {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ValidationError(path: "$", message: "schema is not an object")
        }
        self.root = root
    }

    struct ValidationError: Error, CustomStringConvertible {
        var path: String
        var message: String
        var description: String { "\(path): \(message)" }
    }

    /// Every violation in `instance` (empty when valid).
    func validate(_ instance: Any) -> [ValidationError] {
        var errors: [ValidationError] = []
        check(instance, against: root, path: "$", errors: &errors)
        return errors
    }

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String else { return schema }
        precondition(reference.hasPrefix("#/$defs/"), "only local $defs references are supported")
        let name = String(reference.dropFirst("#/$defs/".count))
        guard let definitions = root["$defs"] as? [String: Any], let target = definitions[name] as? [String: Any] else {
            preconditionFailure("dangling reference \(reference)")
        }
        return resolve(target)
    }

    private static func typeName(of value: Any) -> String {
        if value is NSNull { return "null" }
        if let number = value as? NSNumber {
            if String(cString: number.objCType) == "c" { return "boolean" }
            return number.doubleValue == number.doubleValue.rounded() ? "integer" : "number"
        }
        if value is String { return "string" }
        if value is [Any] { return "array" }
        if value is [String: Any] { return "object" }
        return "unknown"
    }

    private func check(_ value: Any, against rawSchema: [String: Any], path: String, errors: inout [ValidationError]) {
        let schema = resolve(rawSchema)
        let actual = Self.typeName(of: value)
        if let type = schema["type"] {
            let allowed = (type as? [String]) ?? [(type as? String) ?? ""]
            let matches = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !matches {
                errors.append(
                    ValidationError(path: path, message: "is \(actual), expected \(allowed.joined(separator: " or "))"))
                return
            }
        }
        if let options = schema["enum"] as? [Any] {
            if !options.contains(where: { Self.equal($0, value) }) {
                errors.append(ValidationError(path: path, message: "\(value) is not one of \(options)"))
            }
        }
        if let constant = schema["const"], !Self.equal(constant, value) {
            errors.append(ValidationError(path: path, message: "\(value) is not \(constant)"))
        }
        if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, let number = (value as? NSNumber)?.doubleValue,
            number < minimum
        {
            errors.append(ValidationError(path: path, message: "\(number) is below the minimum \(minimum)"))
        }
        if let string = value as? String {
            if let minLength = schema["minLength"] as? Int, string.count < minLength {
                errors.append(ValidationError(path: path, message: "is shorter than \(minLength)"))
            }
            if let pattern = schema["pattern"] as? String,
                string.range(of: pattern, options: .regularExpression) == nil
            {
                errors.append(ValidationError(path: path, message: "'\(string)' does not match \(pattern)"))
            }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                errors.append(ValidationError(path: path, message: "missing required property '\(name)'"))
            }
            for (name, member) in object {
                if let propertySchema = properties[name] as? [String: Any] {
                    check(member, against: propertySchema, path: "\(path).\(name)", errors: &errors)
                } else if let additional = schema["additionalProperties"] {
                    if let allowed = additional as? Bool, !allowed {
                        errors.append(ValidationError(path: path, message: "unexpected property '\(name)'"))
                    } else if let additionalSchema = additional as? [String: Any] {
                        check(member, against: additionalSchema, path: "\(path).\(name)", errors: &errors)
                    }
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() {
                check(element, against: items, path: "\(path)[\(index)]", errors: &errors)
            }
        }
    }

    private static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        switch (lhs, rhs) {
        case (let l as String, let r as String): return l == r
        case (let l as NSNumber, let r as NSNumber): return l == r
        default: return false
        }
    }
}
