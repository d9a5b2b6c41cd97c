@testable import Reel
import Testing

/// Camera control names as v4l2-ctl prints them, from the labels drivers give (uvcvideo's among them).
@Suite struct CameraControlTests {
    @Test(arguments: [
        ("Brightness", "brightness"),
        ("White Balance, Automatic", "white_balance_automatic"),
        ("White Balance Temperature", "white_balance_temperature"),
        ("Auto Exposure", "auto_exposure"),
        ("Exposure Time, Absolute", "exposure_time_absolute"),
        ("Focus, Automatic Continuous", "focus_automatic_continuous"),
        ("Power Line Frequency", "power_line_frequency"),
        ("  LED1 Mode ", "led1_mode"),
        ("Zoom, Absolute", "zoom_absolute"),
    ])
    func namesAreV4L2CtlsNames(label: String, name: String) {
        #expect(CameraControl.name(forLabel: label) == name)
    }
}
