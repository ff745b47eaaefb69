import MediaDRMJSON

/// The strict JSON parser, and the writer round trip: whatever the parser accepts, the writer
/// writes as text that parses back to the same value and is a fixed point of writing.
enum JSONTarget {
    static let target = FuzzTarget("json", "JSONParser.parse and parseWithSpans; JSONWriter round trip") { input throws(FuzzViolation) in
        guard let value = try? JSONParser.parse(input) else {
            // The span parser must refuse exactly what the plain parser refuses.
            if (try? JSONParser.parseWithSpans(input)) != nil {
                throw FuzzViolation("json", "parseWithSpans accepted what parse refused")
            }
            return .refused
        }
        guard let spanned = try? JSONParser.parseWithSpans(input), spanned.value == value else {
            throw FuzzViolation("json", "parseWithSpans disagrees with parse")
        }
        let written = JSONWriter.bytes(value)
        guard let reread = try? JSONParser.parse(written) else {
            throw FuzzViolation("json", "the writer's output does not parse")
        }
        guard reread == value else { throw FuzzViolation("json", "the round trip changed the value") }
        guard JSONWriter.bytes(reread) == written else {
            throw FuzzViolation("json", "writing is not a fixed point")
        }
        return .accepted
    }
}
