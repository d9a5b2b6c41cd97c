import CFFmpeg

/// An owned AVDictionary built from Swift key/values, for the `options` argument of FFmpeg's open calls.
/// After the call, the entries FFmpeg did not consume are left in it: `remainingKeys` names them.
final class OptionDictionary {
    var pointer: OpaquePointer?

    init(_ options: [(key: String, value: String)]) {
        for (key, value) in options {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    deinit { av_dict_free(&pointer) }

    var remainingKeys: [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys
    }
}
