import FFmpegCore
import FoundationEssentials
import Glibc

/// The movie an edit writes (a trim, a join): under the output's hidden name, finished and renamed into place
/// once every packet is in; on any error abandoned and its hidden file deleted, so nothing is left under a
/// final name or half-written. A full disk is `ReelError(.diskFull)`, naming the command and the output.
final class EditedMovie {
    private let command: String
    private let output: String
    private let writer: MovieWriter
    private let streamCount: Int

    private init(command: String, output: String, partial: String, streams: [StreamParameters], rotation: DisplayTurn) throws {
        self.command = command
        self.output = output
        streamCount = streams.count
        writer = try MovieWriter(path: partial, streams: streams, rotation: rotation, limits: RecordingLimits(),
                                 folder: URL(fileURLWithPath: output).deletingLastPathComponent().path)
    }

    /// The output of an edit: a .mov name, none of its inputs, checked as every command's outputs are
    /// (`OutputPlan`: its folder, its name's length, no folder or device there, neither it nor its hidden name an
    /// input, new unless overwriting) before anything is written. `role` names it ("trimmed movie").
    static func checkOutput(_ output: String, command: String, role: String, inputs: [String], overwrite: Bool) throws {
        guard output.lowercased().hasSuffix(".mov") else {
            throw ReelError.invalidInput("\(output): \(command) writes QuickTime movies; give OUTPUT a name ending in .mov")
        }
        for input in inputs where FileManager.default.fileExists(atPath: output) && FileSystem.isSameFile(input, output) {
            let which = inputs.count == 1 ? "the input" : "one of the inputs (\(input))"
            throw ReelError.invalidInput("\(output) is \(which): give the \(role) another name")
        }
        var plan = OutputPlan()
        plan.addMovie(output, segmentation: nil, writesHidden: true, role: role)
        plan.inputs = inputs
        try plan.check(overwrite: overwrite)
    }

    /// Writes `output` (`command` names the edit in errors) with `streams`: `body` submits the packets; then the
    /// movie is finished and put in place. Returns its pictures (stream 0's packets) and its size.
    static func write(_ command: String, to output: String, streams: [StreamParameters], rotation: DisplayTurn,
                      _ body: (EditedMovie) throws -> Void) throws -> (frames: Int, bytes: Int64) {
        let partial = PartialName.path(for: output)
        var kept = false
        defer { if !kept { unlink(partial) } }
        let movie = try EditedMovie(command: command, output: output, partial: partial, streams: streams, rotation: rotation)
        do {
            try movie.writer.start()
            try body(movie)
            for stream in 0..<movie.streamCount {
                if case .limitReached(let reason) = try movie.writer.endStream(stream) { throw movie.stopped(reason) }
            }
            try movie.writer.finish()
            if let reason = movie.writer.stopReason { throw movie.stopped(reason) }
        } catch {
            movie.writer.abandon()
            if let ffmpegError = error as? FFmpegError, ffmpegError.isNoSpace {
                throw ReelError(.diskFull, "\(command) \(output): the disk filled while writing it; nothing was kept")
            }
            throw error
        }
        let failure = FileSystem.moveIntoPlace(partial, output)
        guard failure == 0 else {
            throw ReelError.runtime("\(command) \(output): cannot put the movie in place (\(String(cString: strerror(failure))))")
        }
        kept = true
        var info = stat()
        return (movie.writer.writtenPackets[0], stat(output, &info) == 0 ? Int64(info.st_size) : 0)
    }

    /// One packet of stream `stream`, its times in that stream's time base.
    func submit(_ packet: Packet, stream: Int) throws {
        packet.streamIndex = stream
        if case .limitReached(let reason) = try writer.submit(packet) { throw stopped(reason) }
    }

    private func stopped(_ reason: StopReason) -> ReelError {
        switch reason {
        case .diskSpaceLimitReached, .diskFull:
            return ReelError(.diskFull, "\(command) \(output): the disk is full; nothing was kept")
        default:
            return ReelError.runtime("\(command) \(output): the movie stopped (\(reason.rawValue)); nothing was kept")
        }
    }
}
