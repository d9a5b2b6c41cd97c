import FoundationEssentials
import Glibc
import Reel

/// `reel probe FILE [--json]`: a movie's container, duration and streams.
enum ProbeCommand {
    static let help = """
        usage: reel probe FILE [--json]

        Shows the container, duration and streams (codec, size, rate, rotation, colour tags as
        primaries/transfer/matrix/range, cover art) of any file FFmpeg can read.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, command: "probe",
                                         specification: .init(valueOptions: [], flagOptions: ["--json"]))
            guard parsed.positionals.count == 1 else { throw UsageError("probe: expected one file") }
        } catch {
            return .reporting(error)
        }
        do {
            let description = try MediaProbe.describe(path: parsed.positionals[0])
            if parsed.has("--json") {
                Terminal.writeOutput(Terminal.json(description))
                return .success
            }
            var text = "\(description.path): \(description.format)"
            if let duration = description.duration { text += ", \(String(printf: "%.3f", duration)) s" }
            text += "\n"
            for stream in description.streams {
                text += "  #\(stream.index) \(stream.type) \(stream.codec)"
                if let width = stream.width, let height = stream.height { text += " \(width)x\(height)" }
                if let fps = stream.frameRate { text += " \(String(printf: "%g", fps)) fps" }
                if let rate = stream.sampleRate { text += " \(rate) Hz" }
                if let channels = stream.channels { text += " \(channels) ch" }
                if let rotation = stream.rotation, rotation != 0 { text += " rotated \(rotation)°" }
                if let colour = stream.colour { text += " colour \(colour)" }
                if stream.attachedPicture == true { text += " (cover art)" }
                text += "\n"
            }
            Terminal.writeOutput(text)
            return .success
        } catch {
            return .reporting(error)
        }
    }
}
