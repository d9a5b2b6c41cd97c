/// What a send to a codec did. `EAGAIN` is a state, not an error: the codec wants its output read first.
public enum SendResult: Equatable {
    case accepted
    case outputFull
}

/// What a receive from a codec gave.
public enum ReceiveResult: Equatable {
    case received
    /// Send more input first (EAGAIN).
    case needsInput
    /// Everything was flushed out (EOF).
    case endOfStream
}
