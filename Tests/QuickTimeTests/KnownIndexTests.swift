import QuickTime
import Testing

/// The index built from the fragmented template equals the one FFmpeg wrote for the same samples at the same
/// offsets, byte for byte (Fixtures/: movies encoded by the ffmpeg CLI, see make-fixtures.sh), and the
/// trailer bound for those samples is never below it.
@Suite struct KnownIndexTests {
    @Test(arguments: ["h264-aac", "hevc-rotated", "delayed-video"])
    func indexEqualsFFmpegs(fixture: String) throws {
        let movie = try KnownMovie.fixture(fixture)
        let index = try movie.index()
        #expect(index == movie.regular, "\(KnownMovie.differences(index, movie.regular))")
    }

    @Test(arguments: ["h264-aac", "hevc-rotated", "delayed-video"])
    func trailerBoundHoldsTheRealIndex(fixture: String) throws {
        let movie = try KnownMovie.fixture(fixture)
        let bound = try movie.bound()
        #expect(bound >= movie.regular.count, "bound \(bound) below FFmpeg's moov \(movie.regular.count)")
        #expect(bound - movie.regular.count <= KnownMovie.boundSlack, "bound \(bound) loose against \(movie.regular.count)")
    }

    @Test func templateAndStreamsMustAgree() throws {
        let movie = try KnownMovie.fixture("h264-aac")
        let template = try MovieBoxTemplate(movie.template)
        #expect(template.movieTimescale == 1000 && template.tracks.map(\.handler) == ["vide", "soun"])
        #expect(template.tracks.map(\.timescale) == [15360, 48000])
        let tracks = try movie.tracks()
        #expect(throws: MovieIndexBuilder.IndexError.self) { try MovieIndexBuilder(template: template, tracks: Array(tracks.prefix(1))) }
        #expect(throws: MovieIndexBuilder.IndexError.self) { try MovieIndexBuilder(template: template, tracks: tracks.reversed()) }
        #expect(throws: MovieBoxTemplate.TemplateError.self) { try MovieBoxTemplate(Array(movie.template.dropLast())) }
    }

    /// A track that never got a sample is left out, as the muxer leaves it out, and the next track ID stays
    /// past the tracks written.
    @Test func tracksWithoutSamplesAreLeftOut() throws {
        var movie = try KnownMovie.fixture("h264-aac")
        movie.samples.removeAll { $0.track == 1 }
        let index = try movie.index()
        let moov = try MovieBoxTemplate(index)
        #expect(moov.tracks.map(\.id) == [1])
        let mvhd = try #require(BoxReader.descendant(["moov", "mvhd"], of: index, in: 0 ..< index.count))
        #expect(BigEndian.uint32(index, at: mvhd.range.upperBound - 4) == 2, "next track ID")
    }
}
