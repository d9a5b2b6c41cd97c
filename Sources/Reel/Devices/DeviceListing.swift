/// What `reel devices --json` prints and `reel serve`'s `/api/devices` answers: the cameras with their modes
/// and controls, the microphones, the built-in sources and the defaults.
public struct DeviceListing: Encodable, Sendable {
    public var cameras: [CameraDevice]
    public var microphones: [MicrophoneDevice]
    public var builtIn: [String]
    public var defaultVideo: String
    public var defaultAudio: String

    /// The devices present now.
    public static func current() -> DeviceListing {
        DeviceListing(cameras: DeviceDiscovery.cameras(), microphones: DeviceDiscovery.microphones(),
                      builtIn: [DeviceDiscovery.builtInVideo.description, DeviceDiscovery.builtInAudio.description],
                      defaultVideo: DeviceDiscovery.defaultVideo().description, defaultAudio: DeviceDiscovery.defaultAudio().description)
    }
}
