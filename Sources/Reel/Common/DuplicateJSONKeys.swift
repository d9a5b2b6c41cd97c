/// Finds a key that appears twice in one JSON object. JSONDecoder keeps one of them silently, so a control
/// request `{"command": ["status"], "command": ["stop"]}` ran a command its sender may not have meant, and a
/// job file's second `"output"` was ignored. Scans the bytes of a document JSONDecoder has accepted (or will
/// judge): strings with their escapes, nesting of objects and arrays. Pure.
package enum DuplicateJSONKeys {
    /// The first key repeated within one object, decoded (escapes taken as written), or nil.
    package static func first(in bytes: some Collection<UInt8>) -> String? {
        // One entry per open container: for an object, the keys seen so far and whether a key comes next.
        var stack: [(isObject: Bool, keys: Set<[UInt8]>, expectsKey: Bool)] = []
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "{"):
                stack.append((true, [], true))
            case UInt8(ascii: "["):
                stack.append((false, [], false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].isObject { stack[last].expectsKey = true }
            case UInt8(ascii: "\""):
                var text: [UInt8] = []
                while let next = iterator.next(), next != UInt8(ascii: "\"") {
                    text.append(next)
                    if next == UInt8(ascii: "\\"), let escaped = iterator.next() { text.append(escaped) }
                }
                if let last = stack.indices.last, stack[last].isObject, stack[last].expectsKey {
                    stack[last].expectsKey = false
                    if !stack[last].keys.insert(text).inserted { return String(decoding: text, as: UTF8.self) }
                }
            default:
                break
            }
        }
        return nil
    }
}
