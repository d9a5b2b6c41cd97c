/// How long devices may take, for everything that waits on one (the session's stall watch, a switch to a
/// new input, the V4L2 reader's first picture).
enum DeviceDeadlines {
    /// Seconds a device may take to deliver its first frame: cameras and audio servers can need seconds to
    /// start. After it, the session's `deviceTimeout` applies.
    static let firstFrame: Double = 10
}
