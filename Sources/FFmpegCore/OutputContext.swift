import CFFmpeg

/// An output file being muxed: the one owner of its AVFormatContext and AVIOContext.
/// The canonical order is: add streams, `writeHeader`, `write` packets, `finish` (trailer + close).
public final class OutputContext {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var encoderTimeBases: [Rational] = []
    private var isOpen = false
    public let path: String
    /// Interrupts the output's blocking I/O (a network output: its connection and writes), kept alive here.
    private let interrupt: InterruptFlag?

    /// A file, or with `interrupt` a network address (srt://, rtmp://) whose opening and writes the flag can
    /// interrupt (by raising it, or by a deadline passing).
    public init(path: String, formatName: String, interrupt: InterruptFlag? = nil) throws {
        self.path = path
        self.interrupt = interrupt
        try FFmpegError.check(avformat_alloc_output_context2(&context, nil, formatName, path),
                              "avformat_alloc_output_context2(\(formatName))")
        if let interrupt {
            context!.pointee.interrupt_callback.callback = interruptCallback
            context!.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        }
    }

    deinit {
        closeIO()
        avformat_free_context(context)
    }

    private func closeIO() {
        guard isOpen else { return }
        isOpen = false
        bytesAtClose = avio_tell(context!.pointee.pb)
        avio_closep(&context!.pointee.pb)
    }

    /// Bytes the output had taken when it was closed (a network output's bytes sent, the trailer included).
    public private(set) var bytesAtClose: Int64 = 0

    private var formatContext: UnsafeMutablePointer<AVFormatContext> { context! }

    /// Whether encoders must put codec headers in extradata (AV_CODEC_FLAG_GLOBAL_HEADER) for this format.
    public var needsGlobalHeader: Bool { formatContext.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Adds a stream carrying `encoder`'s output; returns its index. Packets for it arrive in the encoder's
    /// time base and are rescaled here. `codecTag` (four characters, such as "hvc1") replaces the tag the
    /// muxer would choose for the codec; it must be one the format knows for it.
    @discardableResult
    public func addStream(for encoder: Encoder, codecTag: String? = nil) throws -> Int {
        guard let stream = avformat_new_stream(formatContext, nil) else {
            throw FFmpegError(call: "avformat_new_stream", message: "out of memory")
        }
        try FFmpegError.check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.codecContext),
                              "avcodec_parameters_from_context")
        if let codecTag { try OutputContext.setCodecTag(codecTag, of: stream) }
        stream.pointee.time_base = encoder.codecContext.pointee.time_base
        encoderTimeBases.append(encoder.timeBase)
        return Int(stream.pointee.index)
    }

    /// Adds a stream described by `parameters` (an encoder's, copied on its thread); packets arrive in its time
    /// base and are rescaled here. Returns the stream's index.
    @discardableResult
    public func addStream(_ parameters: StreamParameters, codecTag: String? = nil) throws -> Int {
        guard let stream = avformat_new_stream(formatContext, nil) else {
            throw FFmpegError(call: "avformat_new_stream", message: "out of memory")
        }
        try FFmpegError.check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.parameters), "avcodec_parameters_copy")
        if let codecTag { try OutputContext.setCodecTag(codecTag, of: stream) }
        stream.pointee.time_base = parameters.timeBase.av
        encoderTimeBases.append(parameters.timeBase)
        return Int(stream.pointee.index)
    }

    /// `codecTag` (four characters, such as "hvc1") replaces the tag the muxer would choose for the codec.
    private static func setCodecTag(_ codecTag: String, of stream: UnsafeMutablePointer<AVStream>) throws {
        let characters = Array(codecTag.utf8)
        guard characters.count == 4 else {
            throw FFmpegError(call: "avformat_new_stream", message: "codec tag '\(codecTag)' is not four characters")
        }
        // MKTAG: the first character in the lowest byte.
        stream.pointee.codecpar.pointee.codec_tag = characters.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Records that a player should rotate the stream's picture clockwise by `degrees` (a display matrix,
    /// written by the mov muxer as the track matrix); pixels are not touched.
    public func setRotation(streamIndex: Int, turn: DisplayTurn) throws {
        guard !turn.isIdentity else { return }
        let degrees = turn.clockwiseDegrees
        let stream = formatContext.pointee.streams[streamIndex]!
        let size = 9 * MemoryLayout<Int32>.size
        guard let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, size) else {
            throw FFmpegError(call: "av_stream_new_side_data", message: "out of memory")
        }
        data.withMemoryRebound(to: Int32.self, capacity: 9) {
            // av_display_rotation_set takes counter-clockwise degrees, but FFmpeg 5.1's mov muxer writes the
            // matrix transposed, which flips the sign in the file: passing +degrees is what makes ffmpeg,
            // ffprobe and players rotate clockwise (checked by the orientation tests with the ffmpeg CLI).
            av_display_rotation_set($0, Double(degrees))
            if turn.mirrored { av_display_matrix_flip($0, 1, 0) }
        }
    }

    public func setMetadata(_ key: String, _ value: String) {
        av_dict_set(&formatContext.pointee.metadata, key, value, 0)
    }

    /// A stream's own metadata (`handler_name`, `title`), written with its track.
    public func setStreamMetadata(_ streamIndex: Int, _ key: String, _ value: String) {
        guard let stream = formatContext.pointee.streams[streamIndex] else { return }
        av_dict_set(&stream.pointee.metadata, key, value, 0)
    }

    /// Opens the file and writes the header. `options` are the muxer's own (movflags, ...); `ioOptions` the
    /// protocol's (an SRT socket's linger, ...), which a URL's own query overrides.
    public func writeHeader(options: [(key: String, value: String)] = [], ioOptions: [(key: String, value: String)] = []) throws {
        let protocolOptions = OptionDictionary(ioOptions)
        try FFmpegError.check(avio_open2(&formatContext.pointee.pb, path, AVIO_FLAG_WRITE, &formatContext.pointee.interrupt_callback,
                                         &protocolOptions.pointer), "avio_open(\(path))")
        isOpen = true
        let dictionary = OptionDictionary(options)
        try FFmpegError.check(avformat_write_header(formatContext, &dictionary.pointer), "avformat_write_header(\(path))")
    }

    /// Writes one packet; `interleaved` lets the muxer order packets of different streams by time.
    /// The packet's timestamps are in its encoder's time base; the packet is left empty afterwards.
    public func write(_ packet: Packet, interleaved: Bool = true) throws {
        let stream = formatContext.pointee.streams[packet.streamIndex]!
        packet.rescaleTimestamps(from: encoderTimeBases[packet.streamIndex], to: Rational(stream.pointee.time_base))
        let result = interleaved ? av_interleaved_write_frame(formatContext, packet.pointer)
                                 : av_write_frame(formatContext, packet.pointer)
        try FFmpegError.check(result, "av_write_frame(\(path))")
    }

    /// Writes bytes of the caller's own (a box the muxer does not write) at the current position, after the
    /// header and before any packet.
    public func writeRaw(_ bytes: [UInt8]) throws {
        guard isOpen else { return }
        bytes.withUnsafeBufferPointer { avio_write(formatContext.pointee.pb, $0.baseAddress, Int32($0.count)) }
        try FFmpegError.check(formatContext.pointee.pb.pointee.error, "avio_write(\(path))")
    }

    /// Forces buffered bytes to the file now (the muxer's I/O layer otherwise writes in 32 KiB blocks).
    public func flush() {
        guard isOpen else { return }
        avio_flush(formatContext.pointee.pb)
    }

    /// Ends the current movie fragment (movflags frag_custom): the muxer writes what it holds as one
    /// moof + mdat, and the I/O layer hands every byte of it to the operating system.
    public func writeFragmentBoundary() throws {
        guard isOpen else { return }
        try FFmpegError.check(av_write_frame(formatContext, nil), "av_write_frame(\(path), end of fragment)")
        avio_flush(formatContext.pointee.pb)
        try FFmpegError.check(formatContext.pointee.pb.pointee.error, "avio_write(\(path))")
    }

    /// Drains the interleaving queue, writes the trailer and closes the file.
    public func finish() throws {
        guard isOpen else { return }
        defer { closeIO() }
        try FFmpegError.check(av_write_trailer(formatContext), "av_write_trailer(\(path))")
        avio_flush(formatContext.pointee.pb)
        let ioError = formatContext.pointee.pb.pointee.error
        try FFmpegError.check(ioError, "avio_write(\(path))")
    }

    /// Closes the file without a trailer (after a failure the file is discarded anyway).
    public func abandon() {
        closeIO()
    }

    /// Bytes the file will hold once buffered output is flushed (the current write position).
    public var bytesWritten: Int64 { isOpen ? avio_tell(formatContext.pointee.pb) : 0 }

    /// Bytes already handed to the operating system (the rest sits in the I/O buffer).
    public var bytesFlushed: Int64 {
        guard isOpen, let pb = formatContext.pointee.pb else { return 0 }
        return pb.pointee.pos
    }

    public func streamTimeBase(_ index: Int) -> Rational {
        Rational(formatContext.pointee.streams[index]!.pointee.time_base)
    }
}
