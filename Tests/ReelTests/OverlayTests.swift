@testable import Reel
import Testing

/// Overlay specs as written on the command line: what drawtext is given, where it goes, what is refused.
@Suite struct OverlayTests {
    @Test func textFieldsBecomeDrawtextsAndTheRestStaysLiteral() throws {
        let overlay = try Overlay(parsing: #"text:Lab 2: 100% \ %{timecode} #%{frame} %{time}?at=top-right&size=0.04&box=0"#)
        #expect(overlay.expandedText == #"Lab 2: 100\% \\ %{pts:gmtime:0:%H\:%M\:%S}.%{eif:mod(t*1000,1000):d:3} #%{frame_num} %{localtime:%H\:%M\:%S}"#)
        #expect(overlay.position == .named("top-right") && overlay.size == 0.04 && !overlay.box && overlay.font == Overlay.defaultFont)
        #expect(overlay.placement(pictureHeight: 720) == ("W-w-21", "21"))
    }

    @Test func positionsAndDefaults() throws {
        let text = try Overlay(parsing: "text:hello")
        #expect(text.position == .named("bottom-left") && text.size == 0.05 && text.box && text.colour == LayoutColour(red: 255, green: 255, blue: 255))
        #expect(text.placement(pictureHeight: 100) == ("3", "H-h-3"))
        let placed = try Overlay(parsing: "text:x?at=0.1,0.8&colour=#ff0000&font=DejaVu Sans Mono")
        #expect(placed.position == .fraction(x: 0.1, y: 0.8) && placed.placement(pictureHeight: 720) == ("W*0.1", "H*0.8"))
        #expect(placed.colour.hex == "0xff0000" && placed.font == "DejaVu Sans Mono")
        #expect(try Overlay(parsing: "text:x?at=center").placement(pictureHeight: 720) == ("(W-w)/2", "(H-h)/2"))
    }

    @Test(arguments: [
        ("clock", "write text:TEXT or image:FILE.png"),
        ("text:", "nothing to draw"),
        ("text:%{date}", "unknown field '%{date}'"),
        ("text:x?size=0", "size=0: use a fraction"),
        ("text:x?at=1.5,0", "at=1.5,0: use"),
        ("text:x?box=yes", "box=yes: use 1 or 0"),
        ("text:x?scale=2", "unknown option 'scale'"),
        ("image:logo.jpg", "an image overlay is a .png file"),
        ("image:/nonexistent/logo.png", "cannot read /nonexistent/logo.png"),
        ("image:/dev/null.png?font=x", "cannot read"),
        ("video:x", "unknown kind 'video'"),
        ("text:x?font=Sans,drawbox", "font=Sans,drawbox: a fontconfig family name"),
    ])
    func mistakesAreNamed(_ example: (String, String)) {
        do {
            _ = try Overlay(parsing: example.0)
            Issue.record("accepted \(example.0)")
        } catch let error as ReelError {
            #expect(error.message.hasPrefix("overlay '\(example.0)': ") && error.message.contains(example.1), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func filtersAreNamedAndChained() throws {
        #expect(PictureFilterKind.chain([]) == nil)
        #expect(PictureFilterKind.chain([.deinterlace, .denoise]) == "bwdif=mode=send_frame:parity=auto:deint=all,hqdn3d")
        #expect(throws: ReelError.self) { try PictureFilterKind(parsing: "sharpen") }
    }
}
