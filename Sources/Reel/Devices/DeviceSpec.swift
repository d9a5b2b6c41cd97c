/// Names one input: `KIND:TARGET[?key=value&key=value]`, e.g. `v4l2:/dev/video0?input_format=mjpeg`,
/// `alsa:hw:1,0`, `x11grab::99`, `lavfi:testsrc2?realtime=0`, `file:clip.mp4`. The options go to FFmpeg's
/// input as-is, except `realtime`, which is Reel's own switch for lavfi pacing.
public struct DeviceSpec: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case v4l2, alsa, pulse, x11grab, lavfi, file
    }

    public struct Option: Sendable, Equatable {
        public var key: String
        public var value: String
    }

    public var kind: Kind
    public var target: String
    public var options: [Option]

    public init(kind: Kind, target: String, options: [Option] = []) {
        self.kind = kind
        self.target = target
        self.options = options
    }

    public init(parsing text: String) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw ReelError.invalidInput(
                "device '\(text)' has no kind: write KIND:TARGET with KIND one of \(DeviceSpec.kindList) (e.g. lavfi:testsrc2)")
        }
        let kindText = String(text[..<colon])
        guard let kind = Kind(rawValue: kindText) else {
            throw ReelError.invalidInput("device '\(text)': unknown kind '\(kindText)', use one of \(DeviceSpec.kindList)")
        }
        var rest = Substring(text[text.index(after: colon)...])
        var options: [Option] = []
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true) {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw ReelError.invalidInput("device '\(text)': option '\(pair)' is not key=value")
                }
                options.append(Option(key: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...])))
            }
            rest = rest[..<question]
        }
        guard !rest.isEmpty else {
            throw ReelError.invalidInput("device '\(text)' names no \(kind == .file ? "file" : "device") after '\(kindText):'")
        }
        self.init(kind: kind, target: String(rest), options: options)
        if let realtime = option("realtime"), !["0", "1"].contains(realtime) {
            throw ReelError.invalidInput("device '\(text)': realtime must be 0 or 1")
        }
        if option("realtime") != nil && kind != .lavfi {
            throw ReelError.invalidInput("device '\(text)': realtime applies to lavfi sources only")
        }
        if let gain = option("gain"), DeviceSpec.decibels(gain) == nil {
            throw ReelError.invalidInput("device '\(text)': gain=\(gain): use decibels from \(Int(DeviceSpec.gainRange.lowerBound)) to +\(Int(DeviceSpec.gainRange.upperBound)), e.g. gain=-6dB")
        }
        if let name = option("name"), !DeviceSpec.isTrackName(name) {
            throw ReelError.invalidInput("device '\(text)': name=\(name): a track's name is 1 to \(DeviceSpec.longestTrackName) bytes of printable text, e.g. name=Lectern")
        }
    }

    /// What a movie calls the track this input's sound is recorded in, when inputs are separate tracks
    /// (`name=Lectern`; default: the input's kind and target).
    public var trackName: String { option("name") ?? "\(kind.rawValue):\(target)" }
    /// A QuickTime handler name is a counted string of at most 255 bytes; names stay well short of it.
    static let longestTrackName = 64

    static func isTrackName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= longestTrackName && name.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control }
    }

    public func option(_ key: String) -> String? { options.last(where: { $0.key == key })?.value }

    /// Options that are Reel's own, not FFmpeg's: `realtime` (lavfi pacing), `gain` (a sound input's level
    /// in a mix) and `name` (its track's name when inputs are separate tracks).
    static let ownOptions: Set<String> = ["realtime", "gain", "name"]

    /// A sound input's gain in a mix (`gain=-6dB`), in decibels.
    public var gainDecibels: Double? { option("gain").flatMap(DeviceSpec.decibels) }
    static let gainRange = -60.0...20.0

    static func decibels(_ text: String) -> Double? {
        let number = text.lowercased().hasSuffix("db") ? String(text.dropLast(2)) : text
        guard let value = Double(number), DeviceSpec.gainRange.contains(value) else { return nil }
        return value
    }

    /// Whether frames arrive at the pace of a clock (cameras, microphones, screens, paced lavfi) rather than
    /// as fast as they are read (files, lavfi with realtime=0). Paced inputs drop frames when the encoder
    /// falls behind; unpaced inputs wait for it.
    public var isPaced: Bool {
        switch kind {
        case .file: return false
        case .lavfi: return option("realtime") != "0"
        default: return true
        }
    }

    /// Whether the input is a physical or server device whose end means it was lost.
    public var isDevice: Bool { kind != .file && kind != .lavfi }

    /// How messages name the input: a file by its path, anything else by its spec.
    var name: String { kind == .file ? target : description }

    public var description: String {
        let query = options.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return "\(kind.rawValue):\(target)" + (query.isEmpty ? "" : "?\(query)")
    }

    static var kindList: String { Kind.allCases.map(\.rawValue).joined(separator: ", ") }
}
