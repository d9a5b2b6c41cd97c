import Glibc
import SystemSupport
import Testing

/// FileDescriptor closes itself exactly once. Observed through a pipe's other end (a read end sees the end
/// of the stream once the last write end is closed), never through descriptor numbers, which the tests
/// running beside these reuse at once.
@Suite struct FileDescriptorTests {
    /// Reads one byte without blocking: 1 (a byte), 0 (every write end closed) or -1 (open, nothing yet).
    private static func readOne(_ end: FileDescriptor) -> Int {
        var byte: UInt8 = 0
        return read(end.raw, &byte, 1)
    }

    @Test func theLastReferenceClosesIt() throws {
        let readEnd: FileDescriptor
        do {
            let ends = try FileDescriptor.pipe(flags: O_NONBLOCK)
            readEnd = ends.read
            withExtendedLifetime(ends.write) { #expect(Self.readOne(readEnd) == -1 && errno == EAGAIN) }
        }
        #expect(Self.readOne(readEnd) == 0)
    }

    @Test func closeReportsOnceAndTheOwnerDoesNotCloseAgain() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(flags: O_NONBLOCK)
        #expect(writeEnd.close() == nil)
        #expect(writeEnd.close() == nil)  // a second close does nothing (and cannot close a reused number)
        #expect(Self.readOne(readEnd) == 0)
    }

    @Test func aReleasedDescriptorStaysOpenForItsNewOwner() throws {
        let readEnd: FileDescriptor
        let raw: Int32
        do {
            let ends = try FileDescriptor.pipe(flags: O_NONBLOCK)
            readEnd = ends.read
            raw = ends.write.release()
        }
        #expect(Self.readOne(readEnd) == -1 && errno == EAGAIN)
        var byte: UInt8 = 7
        #expect(write(raw, &byte, 1) == 1)
        #expect(Self.readOne(readEnd) == 1)
        #expect(Glibc.close(raw) == 0)
        #expect(Self.readOne(readEnd) == 0)
    }

    @Test func pipeEndsAreCloseOnExecAndTakeTheFlags() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(flags: O_NONBLOCK)
        for end in [readEnd, writeEnd] {
            #expect(fcntl(end.raw, F_GETFD) & FD_CLOEXEC != 0)
            #expect(fcntl(end.raw, F_GETFL) & O_NONBLOCK != 0)
        }
    }

    @Test func openingReportsTheCallAndItsErrno() {
        #expect(throws: SystemError("open", code: ENOENT)) {
            try FileDescriptor.opening("open") { open("no such folder/no such file", O_RDONLY) }
        }
    }
}
