@testable import Reel
import Testing

/// The AVFoundation-like camera settings, turned into a UVC camera's V4L2 controls (pure: a fixture control set).
@Suite struct CameraConvenienceTests {
    static func control(_ name: String, _ kind: CameraControl.Kind, _ minimum: Int64, _ maximum: Int64, step: UInt64 = 1) -> CameraControl {
        CameraControl(name: name, kind: kind, minimum: minimum, maximum: maximum, step: step, defaultValue: minimum, value: minimum,
                      menu: nil, inactive: false, readOnly: false, id: 0)
    }

    static let webcam = [
        control("focus_automatic_continuous", .boolean, 0, 1), control("focus_absolute", .integer, 0, 250, step: 5),
        control("auto_exposure", .menu, 1, 3), control("exposure_time_absolute", .integer, 3, 2047),
        control("white_balance_automatic", .boolean, 0, 1), control("white_balance_temperature", .integer, 2800, 6500, step: 10),
        control("torch_intensity", .integer, 0, 100), control("zoom_absolute", .integer, 100, 500),
    ]
    static let spec = DeviceSpec(kind: .v4l2, target: "/dev/video0")

    static func expand(_ text: String, controls: [CameraControl] = webcam) throws -> [String] {
        try CameraConvenience.expand(CameraControlSetting(parsing: text)!, controls: controls, spec: spec).map { "\($0.name)=\($0.value)" }
    }

    @Test func settingsBecomeControls() throws {
        #expect(try Self.expand("focus=auto") == ["focus_automatic_continuous=1"])
        #expect(try Self.expand("focus=locked") == ["focus_automatic_continuous=0"])
        // Lens position runs near 0 → far 1; UVC's focus_absolute grows towards near.
        #expect(try Self.expand("focus=manual:0") == ["focus_automatic_continuous=0", "focus_absolute=250"])
        #expect(try Self.expand("focus=manual:0.5") == ["focus_automatic_continuous=0", "focus_absolute=125"])
        #expect(try Self.expand("exposure=auto") == ["auto_exposure=3"])
        #expect(try Self.expand("exposure=manual:0.01") == ["auto_exposure=1", "exposure_time_absolute=100"])
        #expect(try Self.expand("white_balance=5000") == ["white_balance_automatic=0", "white_balance_temperature=5000"])
        #expect(try Self.expand("torch=on") == ["torch_intensity=100"])
        #expect(try Self.expand("torch=0.25") == ["torch_intensity=25"])
        #expect(try Self.expand("zoom=2") == ["zoom_absolute=200"])
    }

    @Test func whatTheCameraCannotDoIsAUsageError() {
        #expect(throws: ReelError.self) { try Self.expand("zoom=9") }
        #expect(throws: ReelError.self) { try Self.expand("exposure=manual:5") }
        #expect(throws: ReelError.self) { try Self.expand("focus=manual:2") }
        #expect(throws: ReelError.self) { try Self.expand("focus=sideways") }
        #expect(throws: ReelError.self) { try Self.expand("torch=on", controls: Array(Self.webcam.prefix(2))) }
    }

    /// The typed settings are the string form the command line takes: the same controls on the camera.
    @Test func typedSettingsMeanWhatTheirStringsMean() throws {
        let pairs: [(CameraControlSetting, String)] = [
            (.focus(.auto), "focus=auto"), (.focus(.locked), "focus=locked"),
            (.focus(.manual(lensPosition: 0.5)), "focus=manual:0.5"), (.exposure(.auto), "exposure=auto"),
            (.exposure(.manual(seconds: 0.01)), "exposure=manual:0.01"), (.whiteBalance(.auto), "white_balance=auto"),
            (.whiteBalance(.locked), "white_balance=locked"), (.whiteBalance(.temperature(kelvin: 5000)), "white_balance=5000"),
            (.torch(.on), "torch=on"), (.torch(.off), "torch=off"), (.torch(.level(0.25)), "torch=0.25"),
            (.torch(.level(1)), "torch=1"), (.zoom(2), "zoom=2"), (.zoom(1.5), "zoom=1.5"),
        ]
        for (typed, text) in pairs {
            #expect("\(typed.name)=\(typed.value)" == text)
            let fromTyped = try CameraConvenience.expand(typed, controls: Self.webcam, spec: Self.spec).map { "\($0.name)=\($0.value)" }
            #expect(fromTyped == (try Self.expand(text)))
        }
        #expect(try Self.expand("torch=1") == ["torch_intensity=100"])
    }
}
