import FFmpegCore
import QuickTime

/// Packets meet the container code as plain values (the module has no FFmpeg types).
extension Sample {
    /// A packet's timing, size and flags, in its encoder's time base.
    init(_ packet: Packet) {
        self.init(decodeTime: packet.dts, presentationOffset: packet.pts - packet.dts, duration: packet.duration,
                  size: packet.size, isKeyframe: packet.isKeyframe, isDisposable: packet.isDisposable)
    }
}
