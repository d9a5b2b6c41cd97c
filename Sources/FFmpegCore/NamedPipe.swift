import Glibc
import SystemSupport

/// A named pipe (mkfifo, or a shell's `<(...)`) opened for reading without blocking: open(2) of a FIFO
/// waits for a writer, and no interrupt reaches it there. Here the descriptor is opened non-blocking, the
/// wait for the first data (or the writer's end) polls and honours the interrupt flag, and the descriptor
/// stays non-blocking, so FFmpeg's reads of it (through the pipe: protocol) retry through its interrupt
/// callback instead of sleeping in read(2).
enum NamedPipe {
    /// The descriptor of the FIFO at `path`, once it has data or its writer has gone; nil when `path` is
    /// not a FIFO. Throws when interrupted or when the FIFO cannot be opened.
    static func openForReading(_ path: String, interrupt: InterruptFlag) throws -> FileDescriptor? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else { return nil }
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.opening("open") { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw FFmpegError(call: "open(\(path))", message: String(cString: strerror(error.code)))
        }
        var waiting = pollfd(fd: descriptor.raw, events: Int16(POLLIN), revents: 0)
        while true {
            if interrupt.shouldInterrupt {
                throw FFmpegError(call: "open(\(path))", message: "interrupted while waiting for a writer to the named pipe")
            }
            do throws(SystemError) {
                if try SystemCall.retrying("poll", { poll(&waiting, 1, 100) }) > 0 { return descriptor }
            } catch {
                throw FFmpegError(call: "poll(\(path))", message: String(cString: strerror(error.code)))
            }
        }
    }
}
