import CFFmpeg

/// A failed FFmpeg call: the C function that failed, its error code and FFmpeg's own text for it.
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
    public let code: Int32
    public let call: String
    public let message: String

    public init(code: Int32, call: String) {
        self.code = code
        self.call = call
        self.message = FFmpegError.text(for: code)
    }

    /// An error that did not come from an FFmpeg return code (a missing codec, an impossible setting).
    public init(call: String, message: String) {
        self.code = reel_averror(EINVAL)
        self.call = call
        self.message = message
    }

    public var description: String { "\(call): \(message)" }

    /// The POSIX errno behind this error, when FFmpeg wrapped one (AVERROR(ENOSPC) → ENOSPC).
    public var posixCode: Int32? { code < 0 ? reel_error_to_posix(code) : nil }

    public var isEndOfFile: Bool { code == reel_averror_eof() }
    public var isNoSpace: Bool { posixCode == ENOSPC }

    /// What went wrong opening an input, in words: FFmpeg's own text, except for ENOMEM, which there means
    /// the file declares an absurd amount of data (a damaged index) and hit the allocation cap.
    public var inputProblem: String {
        posixCode == ENOMEM ? "it declares more data than any real movie holds (a damaged index?)" : message
    }

    public static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        av_strerror(code, &buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Throws when `code` is negative, naming `call`.
    @discardableResult
    public static func check(_ code: Int32, _ call: @autoclosure () -> String) throws -> Int32 {
        if code < 0 { throw FFmpegError(code: code, call: call()) }
        return code
    }
}
