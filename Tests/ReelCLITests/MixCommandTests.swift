import Foundation
import ReelTestSupport
import Testing

/// Several `--audio` inputs mixed into one track: two tones at their gains, sample-aligned (fitted as two
/// tones, nothing left over but the codec's error), the sum of two loud ones kept under full scale, and
/// mistakes one line with nothing written.
@Suite struct MixCommandTests {
    static func tone(_ frequency: Int, _ amplitude: Double = 0.125, options: String = "") -> String {
        "lavfi:aevalsrc=\(amplitude)*sin(2*PI*\(frequency)*t):sample_rate=48000?realtime=0" + options
    }

    @Test func twoTonesAreMixedAtTheirGains() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/mix.mov"
        let run = try Processes.reel(["record", output, "--video", "lavfi:testsrc2?realtime=0", "--audio", Self.tone(440),
                                      "--audio", Self.tone(1000, options: "&gain=-6dB"), "--preset", "352x288", "--max-duration", "2", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        #expect(json["audioSamples"] as? Int == 96_000, "\(json)")
        #expect(try SegmentInspection.playedAudioSamples(output) == 96_000)
        // Away from the AAC encoder's first and last frames.
        let samples = Array(try TestInputs.monoSamples(output, sampleRate: 48_000)[4_800..<91_200])
        let fit = ToneFit(samples, sampleRate: 48_000, frequencies: [440, 1000])
        #expect(abs(fit.amplitudes[0] - 0.125) < 0.004 && abs(fit.amplitudes[1] - 0.0625) < 0.003, "\(fit.amplitudes)")
        #expect(fit.residual < 0.003, "residual \(fit.residual)")
        for reader in [try IndependentReaders.gstreamer(output), try IndependentReaders.mediainfo(output)] {
            #expect(abs(reader.duration - 2) < 0.05, "\(reader)")
        }
    }

    /// `--audio-tracks separate`: each input a track of its own, named, on one timeline: each track holds its
    /// own tone alone (fitted with both frequencies: the other's amplitude is nil), at its gain, every track as
    /// long as the video; a tier at another rate and channel count resamples each track on its own.
    @Test func separateTracksCarryTheirOwnTones() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/tracks.mov", tier = "\(folder)/tracks-low.mov"
        let run = try Processes.reel(["record", output, "--video", "lavfi:testsrc2?realtime=0", "--audio", Self.tone(440, options: "&name=Lectern"),
                                      "--audio", Self.tone(1000, options: "&gain=-6dB&name=Room mic"), "--audio-tracks", "separate",
                                      "--preset", "352x288", "--max-duration", "2", "--tier", "low:\(tier)", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        for (movie, rate) in [(output, 48_000), (tier, 22_050)] {
            let streams = try FFprobe.streams(movie).filter { $0["codec_type"] as? String == "audio" }
            #expect(streams.count == 2, "\(movie): \(streams)")
            let names = streams.map { ($0["tags"] as? [String: Any])?["handler_name"] as? String }
            #expect(names == ["Lectern", "Room mic"], "\(names)")
            for (track, (frequency, level)) in [(440.0, 0.125), (1000.0, 0.0625)].enumerated() {
                let samples = try TestInputs.monoSamples(movie, sampleRate: rate, stream: track)
                // ffmpeg's decode of any of Reel's movies (one track too) starts with up to an AAC frame of priming.
                #expect(samples.count >= 2 * rate && samples.count <= 2 * rate + 1024, "\(movie) track \(track): \(samples.count) samples")
                let fit = ToneFit(Array(samples[(rate / 10)..<(rate * 19 / 10)]), sampleRate: rate, frequencies: [440, 1000])
                let own = fit.amplitudes[track], other = fit.amplitudes[1 - track]
                // The low tier's 32 kb/s mono AAC leaves more of its own error.
                #expect(abs(own - level) < 0.004 && other < 0.001 && fit.residual < (rate == 48_000 ? 0.003 : 0.008),
                        "\(movie) track \(track) (\(frequency) Hz): \(fit.amplitudes), residual \(fit.residual)")
            }
        }
        #expect(try SegmentInspection.playedAudioSamples(output) == 96_000)
        let titles = try Processes.run("/usr/bin/mediainfo", ["--Inform=Audio;%Title%|", output]).standardOutput
        #expect(titles.contains("Lectern|") && titles.contains("Room mic|"), "MediaInfo: \(titles)")
        for reader in [try IndependentReaders.gstreamer(output), try IndependentReaders.mediainfo(output)] {
            #expect(reader.audioTracks == 2 && abs(reader.duration - 2) < 0.05, "\(reader)")
        }
    }

    /// Separate tracks in segments: one AAC encoder per track runs on across the files (each file's sound ends
    /// once both tracks gave their last packet for it): every file holds both tracks, each exactly its span's
    /// samples, and each track's files played one after the other are the unsplit recording's sound.
    @Test func separateTracksInSegments() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inputs = ["--video", "lavfi:testsrc2?realtime=0", "--audio", Self.tone(440, options: "&name=Lectern"),
                      "--audio", Self.tone(1000, options: "&name=Room mic"), "--audio-tracks", "separate", "--preset", "352x288",
                      "--max-duration", "2.5"]
        let run = try Processes.reel(["record", "\(folder)/part-{index}.mov", "--segment-duration", "1", "--json"] + inputs)
        #expect(run.status == 0, "\(run.standardError)")
        let whole = try Processes.reel(["record", "\(folder)/whole.mov"] + inputs)
        #expect(whole.status == 0, "\(whole.standardError)")
        let json = try TestInputs.json(run.standardOutput)
        let paths = (json["segments"] as? [[String: Any]] ?? []).compactMap { $0["output"] as? String }
        #expect(paths.count == 3, "\(paths)")
        for (track, frequency) in [440.0, 1000.0].enumerated() {
            var joined: [Float] = []
            for (index, path) in paths.enumerated() {
                let streams = try FFprobe.streams(path).filter { $0["codec_type"] as? String == "audio" }
                #expect(streams.count == 2, "\(path): \(streams.count) sound tracks")
                guard streams.count == 2 else { continue }
                let played = streams[track]["duration_ts"] as? Int ?? Int(streams[track]["duration_ts"] as? String ?? "") ?? -1
                #expect(played == (index < 2 ? 48_000 : 24_000), "\(path) track \(track): \(played) samples played")
                joined += try TestInputs.monoSamples(path, sampleRate: 48_000, stream: track).prefix(max(0, played))
            }
            let unsplit = try TestInputs.monoSamples("\(folder)/whole.mov", sampleRate: 48_000, stream: track).prefix(120_000)
            #expect(joined.count == 120_000 && unsplit.count == 120_000)
            let apart = zip(joined, unsplit).map { abs($0 - $1) }.max() ?? 1
            #expect(apart < 0.001, "track \(track) (\(frequency) Hz): the files joined differ from the unsplit sound by \(apart)")
        }
    }

    /// Two tones at 0.9 each would reach 1.8 (mono sources, upmixed to the preset's two channels 3 dB down:
    /// 1.27): the limiter keeps the sum under full scale, and the tones are still both there, in proportion.
    @Test func aLoudSumIsKeptUnderFullScale() throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = "\(folder)/loud.mov"
        let run = try Processes.reel(["record", output, "--video", "none", "--audio", Self.tone(440, 0.9), "--audio", Self.tone(660, 0.9),
                                      "--preset", "352x288", "--max-duration", "2"])
        #expect(run.status == 0, "\(run.standardError)")
        // The channels as stored (a mono downmix would add them).
        let raw = "\(folder)/loud.f32"
        try TestInputs.ffmpeg(["-i", output, "-f", "f32le", raw])
        let stereo = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let peak = stereo.map { abs($0) }.max() ?? 0
        #expect(peak < 1.0 && peak > 0.9, "peak \(peak)")
        let samples = Array(try TestInputs.monoSamples(output, sampleRate: 48_000)[4_800..<91_200])
        let fit = ToneFit(samples, sampleRate: 48_000, frequencies: [440, 660])
        #expect(abs(fit.amplitudes[0] / fit.amplitudes[1] - 1) < 0.05, "\(fit.amplitudes)")
    }

    @Test(arguments: [
        (["--audio", "none", "--audio", "lavfi:sine?realtime=0"], "--audio none leaves the sound out"),
        (["--audio", "lavfi:sine?realtime=0", "--audio", "lavfi:sine?realtime=0", "--audio-tracks", "apart"], "--audio-tracks 'apart': use mix or separate"),
        (["--audio", "lavfi:sine?realtime=0&name=", "--audio", "lavfi:sine?realtime=0", "--audio-tracks", "separate"], "name=: a track's name is 1 to 64 bytes"),
        (["--audio", "lavfi:sine?realtime=0&gain=loud"], "gain=loud: use decibels from -60 to +20"),
        (["--audio", "lavfi:sine?realtime=0", "--audio", "lavfi:sine"], "cannot mix a live source with an unpaced one"),
    ])
    func mistakesAreOneLine(_ example: ([String], String)) throws {
        let folder = try Scratch.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Processes.reel(["record", "\(folder)/out.mov", "--video", "lavfi:testsrc2?realtime=0", "--max-duration", "1"] + example.0)
        #expect(run.status == 2 && run.standardError.contains(example.1) && run.standardError.split(separator: "\n").count == 1,
                "\(run.status) \(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
