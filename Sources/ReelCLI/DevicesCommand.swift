import Reel

/// `reel devices [--json]`: cameras with their modes, microphones, and the built-in sources.
enum DevicesCommand {
    static let help = """
        usage: reel devices [--json]

        Lists V4L2 cameras (with pixel formats, sizes and frame rates, and their controls with ranges and
        current values), ALSA capture devices, and the built-in lavfi sources used when no device is given.
        """

    static func run(_ arguments: [String]) -> ExitCode {
        let parsed: ParsedArguments
        do {
            parsed = try .jsonFlagOnly(arguments, command: "devices")
        } catch {
            return .reporting(error)
        }
        let listing = DeviceListing.current()
        if parsed.has("--json") {
            Terminal.writeOutput(Terminal.json(listing))
            return .success
        }
        var text = "cameras:\n"
        if listing.cameras.isEmpty { text += "  (none)\n" }
        for camera in listing.cameras {
            text += "  \(camera.spec)  \(camera.name)\n"
            let grouped = Dictionary(grouping: camera.modes) { "\($0.pixelFormat) \($0.width)x\($0.height)" }
            for key in grouped.keys.sorted() {
                let rates = grouped[key]!.map { $0.fps == 0 ? "?" : String(printf: "%g", $0.fps) }
                text += "      \(key) @ \(rates.joined(separator: ", ")) fps\n"
            }
            if !camera.controls.isEmpty { text += "    controls:\n" }
            for control in camera.controls { text += "      \(DevicesCommand.describe(control))\n" }
        }
        text += "microphones (ALSA):\n"
        if listing.microphones.isEmpty { text += "  (none)\n" }
        for microphone in listing.microphones { text += "  \(microphone.spec)  \(microphone.description)\n" }
        text += "built-in:\n  lavfi:testsrc2  test pattern (any lavfi video source works: lavfi:smptebars ...)\n"
        text += "  lavfi:sine      440 Hz tone (lavfi:sine=frequency=1000 ...)\n"
        text += "defaults: --video \(listing.defaultVideo) --audio \(listing.defaultAudio)\n"
        Terminal.writeOutput(text)
        return .success
    }

    /// "focus_absolute (integer 0..255 step 1, default 0) = 0, inactive" / "auto_exposure (menu 1 Manual Mode, 3 Aperture Priority Mode) = 3"
    static func describe(_ control: CameraControl) -> String {
        var range: String
        switch control.kind {
        case .boolean: range = "boolean"
        case .button: range = "button"
        case .menu, .integerMenu:
            range = "menu " + (control.menu ?? []).map { "\($0.value) \($0.name)" }.joined(separator: ", ")
        default: range = "\(control.kind.rawValue) \(control.minimum)..\(control.maximum) step \(control.step)"
        }
        var text = "\(control.name) (\(range), default \(control.defaultValue))"
        if let value = control.value { text += " = \(value)" }
        if control.inactive { text += ", inactive" }
        if control.readOnly { text += ", read-only" }
        return text
    }
}
