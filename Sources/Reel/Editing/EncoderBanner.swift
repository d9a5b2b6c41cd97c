/// The text an encoder leaves in its stream about itself (x264's and x265's SEI user data: version, then
/// "options: …"), found in a payload by how it starts and read up to its terminating zero.
enum EncoderBanner {
    static func text(startingWith marker: String, in payload: [UInt8]) -> String? {
        let marker = Array(marker.utf8)
        guard payload.count > marker.count,
              let start = (0...(payload.count - marker.count)).first(where: { payload[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        let end = payload[start...].firstIndex(of: 0) ?? payload.count
        return String(decoding: payload[start..<end], as: UTF8.self)
    }
}
