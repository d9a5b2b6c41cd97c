import Glibc
import SystemSupport

/// Bytes that can be read at any offset: a file being written, or an array in memory (tests, small files).
public protocol RandomAccessBytes {
    /// Exactly `count` bytes from `offset`, or an error.
    func read(at offset: Int64, count: Int) throws(ByteReadError) -> [UInt8]
}

/// Why bytes could not be read.
public enum ByteReadError: Error, Equatable, CustomStringConvertible {
    /// Fewer bytes than asked for are there.
    case shortRead(offset: Int64, count: Int, available: Int)
    /// The read failed (errno).
    case system(offset: Int64, count: Int, errno: Int32)

    public var description: String {
        switch self {
        case .shortRead(let offset, let count, let available):
            "cannot read \(count) bytes at \(offset): only \(available) there"
        case .system(let offset, let count, let code):
            "cannot read \(count) bytes at \(offset) (\(String(cString: strerror(code))))"
        }
    }
}

/// A file read with pread through a descriptor its owner keeps open (and closes).
public struct FileBytes: RandomAccessBytes, Sendable {
    /// An open descriptor; reading does not move its offset.
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public func read(at offset: Int64, count: Int) throws(ByteReadError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got: Int
            do {
                got = try SystemCall.retrying("pread") {
                    bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
                }
            } catch {
                throw .system(offset: offset, count: count, errno: error.code)
            }
            guard got > 0 else { throw .shortRead(offset: offset, count: count, available: done) }
            done += got
        }
        return bytes
    }
}

extension Array: RandomAccessBytes where Element == UInt8 {
    public func read(at offset: Int64, count: Int) throws(ByteReadError) -> [UInt8] {
        guard offset >= 0, offset <= Int64(self.count) else { throw .shortRead(offset: offset, count: count, available: 0) }
        let start = Int(offset)
        guard count <= self.count - start else { throw .shortRead(offset: offset, count: count, available: self.count - start) }
        return Array(self[start ..< start + count])
    }
}
