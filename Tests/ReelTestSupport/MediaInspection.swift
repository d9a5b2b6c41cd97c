import FFmpegCore
import Foundation

/// What a movie really holds, found by decoding every frame back with FFmpeg (not by trusting headers).
public struct MediaInspection: Sendable {
    public var videoCodec: String?
    public var audioCodec: String?
    public var width = 0
    public var height = 0
    public var videoFrames = 0
    public var frameRate: Double = 0
    public var rotation = 0
    /// Presentation time of the first and the end of the last decoded picture, in seconds.
    public var videoStart: Double = 0
    public var videoEnd: Double = 0
    public var audioSampleRate = 0
    public var audioChannels = 0
    public var audioSamples = 0
    public var audioStart: Double = 0
    /// Mono mix of the first channel, for tone checks (at most the first 10 s).
    public var audioPreview: [Float] = []
    /// The QuickTime/MP4 major brand from the ftyp atom ("qt  " for QuickTime).
    public var majorBrand: String = ""

    public var videoDuration: Double { videoEnd - videoStart }
    public var audioDuration: Double { audioSampleRate > 0 ? Double(audioSamples) / Double(audioSampleRate) : 0 }

    public init(path: String) throws {
        majorBrand = Atoms.majorBrand(path: path) ?? ""
        let input = try InputContext(url: path, formatName: nil)
        let packet = Packet()
        let frame = Frame()
        var decoders: [Int: Decoder] = [:]
        if let video = input.bestStream(of: .video) {
            decoders[video.index] = try Decoder(input: input, streamIndex: video.index)
            videoCodec = video.codecName
            width = video.width
            height = video.height
            frameRate = video.frameRate?.doubleValue ?? 0
            rotation = video.rotationDegrees
        }
        if let audio = input.bestStream(of: .audio) {
            decoders[audio.index] = try Decoder(input: input, streamIndex: audio.index)
            audioCodec = audio.codecName
            audioSampleRate = audio.sampleRate
            audioChannels = audio.channelCount
        }
        var firstVideo: Double? = nil
        var firstAudio: Double? = nil
        func drain(_ decoder: Decoder) throws {
            while try decoder.receive(into: frame) == .received {
                let seconds = Double(frame.bestEffortTimestamp) * decoder.stream.timeBase.doubleValue
                if decoder.stream.mediaType == .video {
                    videoFrames += 1
                    if firstVideo == nil { firstVideo = seconds }
                    let duration = Double(frame.duration) * decoder.stream.timeBase.doubleValue
                    videoEnd = max(videoEnd, seconds + (duration > 0 ? duration : 1 / max(frameRate, 1)))
                } else {
                    if firstAudio == nil { firstAudio = seconds }
                    audioSamples += frame.sampleCount
                    if audioPreview.count < audioSampleRate * 10, frame.sampleFormat == .floatPlanar,
                       let data = frame.pointer.pointee.data.0 {
                        data.withMemoryRebound(to: Float.self, capacity: frame.sampleCount) {
                            audioPreview.append(contentsOf: UnsafeBufferPointer(start: $0, count: frame.sampleCount))
                        }
                    }
                }
            }
        }
        while try input.read(into: packet) == .packet {
            guard let decoder = decoders[packet.streamIndex] else { continue }
            if try decoder.send(packet) == .outputFull {
                try drain(decoder)
                _ = try decoder.send(packet)
            }
            try drain(decoder)
        }
        for decoder in decoders.values {
            _ = try decoder.send(nil)
            try drain(decoder)
        }
        videoStart = firstVideo ?? 0
        audioStart = firstAudio ?? 0
    }
}

/// Reads top-level QuickTime atoms, to check the brand and the size of the index (moov).
public enum Atoms {
    public static func topLevel(path: String) -> [(type: String, size: Int64)] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        var atoms: [(String, Int64)] = []
        var offset: UInt64 = 0
        while true {
            handle.seek(toFileOffset: offset)
            let header = handle.readData(ofLength: 16)
            guard header.count >= 8 else { break }
            let bytes = [UInt8](header)
            var size = Int64(bytes[0..<4].reduce(0) { $0 << 8 | UInt64($1) })
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if size == 1 && bytes.count >= 16 { size = Int64(bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }) }
            if size == 0 { break }
            atoms.append((type, size))
            offset += UInt64(size)
        }
        return atoms
    }

    /// Every box inside the moov, keyed by its path ("trak/mdia/minf/stbl/stts"), in file order: the
    /// whole box bytes. Containers are listed by their children only.
    public static func movieBoxes(path: String) -> [(path: String, bytes: [UInt8])] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var result: [(String, [UInt8])] = []
        func walk(_ start: Int, _ end: Int, _ prefix: String) {
            var offset = start
            while offset + 8 <= end {
                let size = u32(offset)
                guard size >= 8, offset + size <= end else { return }
                let type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
                let name = prefix.isEmpty ? type : "\(prefix)/\(type)"
                if ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta"].contains(type) {
                    walk(offset + 8, offset + size, type == "moov" ? "" : name)
                } else {
                    result.append((name, Array(bytes[offset ..< offset + size])))
                }
                offset += size
            }
        }
        guard let moov = topLevelOffsets(bytes).first(where: { $0.type == "moov" }) else { return [] }
        walk(moov.offset, moov.offset + moov.size, "")
        return result
    }

    private static func topLevelOffsets(_ bytes: [UInt8]) -> [(type: String, offset: Int, size: Int)] {
        var result: [(String, Int, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = Int(bytes[offset ..< offset + 4].reduce(0) { $0 << 8 | UInt64($1) })
            if size == 1 { size = Int(bytes[offset + 8 ..< offset + 16].reduce(0) { $0 << 8 | UInt64($1) }) }
            guard size >= 8 else { break }
            result.append((String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self), offset, size))
            offset += size
        }
        return result
    }

    public static func pngSignature(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return [UInt8](handle.readData(ofLength: 8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    }

    public static func majorBrand(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let bytes = [UInt8](handle.readData(ofLength: 12))
        guard bytes.count == 12, String(decoding: bytes[4..<8], as: UTF8.self) == "ftyp" else { return nil }
        return String(decoding: bytes[8..<12], as: UTF8.self)
    }
}

/// Frequency of a steady tone from its zero crossings.
public enum ToneAnalysis {
    public static func frequency(of samples: [Float], sampleRate: Int) -> Double {
        guard samples.count > 2 else { return 0 }
        var crossings = 0
        for index in 1..<samples.count where (samples[index - 1] < 0) != (samples[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(samples.count) / Double(sampleRate))
    }
}
