import FFmpegCore
import Foundation
@testable import Reel
import Testing

/// Layouts (built in and from files), the pixel rectangles they give an input, the composition's timing rule
/// for unpaced inputs, and the colours a layout draws.
@Suite struct VideoLayoutTests {
    typealias Region = VideoLayout.Region

    @Test func pipFillsThePictureWithTheFirstAndPutsTheOthersInTheCorner() throws {
        let layout = try VideoLayout.builtIn("pip", inputs: 3)
        #expect(layout.placements[0].rect == .whole)
        #expect(layout.placements[1].rect == Region(x: 0.725, y: 0.725, width: 0.25, height: 0.25))
        #expect(abs(layout.placements[2].rect.x - 0.45) < 1e-9 && layout.placements[2].rect.y == 0.725)
        #expect(layout.drawingOrder == [0, 1, 2])
        #expect(throws: ReelError.self) { try VideoLayout.builtIn("pip", inputs: 5) }
    }

    @Test func sideBySideAndGridShareThePictureEqually() throws {
        let sides = try VideoLayout.builtIn("side-by-side", inputs: 2)
        #expect(sides.placements.map(\.rect) == [Region(x: 0, y: 0, width: 0.5, height: 1), Region(x: 0.5, y: 0, width: 0.5, height: 1)])
        let grid = try VideoLayout.builtIn("grid", inputs: 5)
        // The squarest grid: 3 columns, 2 rows.
        #expect(grid.placements[0].rect == Region(x: 0, y: 0, width: 1.0 / 3, height: 0.5))
        #expect(grid.placements[4].rect == Region(x: 1.0 / 3, y: 0.5, width: 1.0 / 3, height: 0.5))
        let four = try VideoLayout.builtIn("grid", inputs: 4)
        #expect(four.placements[3].rect == Region(x: 0.5, y: 0.5, width: 0.5, height: 0.5))
    }

    @Test func onlyShowsOneInputAndChecksItsNumber() throws {
        let layout = try VideoLayout.builtIn("only:2", inputs: 3)
        #expect(layout.drawingOrder == [1] && layout.placements[1].rect == .whole && layout.placements.count == 3)
        for wrong in ["only:0", "only:4", "only:x", "mosaic"] {
            #expect(throws: ReelError.self) { try VideoLayout.builtIn(wrong, inputs: 3) }
        }
    }

    @Test func aLayoutFilePlacesEachInput() throws {
        let text = """
            {"name": "lecture", "inputs": [
              {"rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "z": 2},
              {"rect": {"x": 0.7, "y": 0.68, "width": 0.28, "height": 0.3}, "z": 1, "scaling": "fill",
               "crop": {"x": 0.25, "y": 0, "width": 0.5, "height": 1}, "border": {"width": 4, "colour": "#ff8000"}}]}
            """
        let layout = try VideoLayout(parsing: Data(text.utf8), source: "lecture.json", defaultName: "x")
        #expect(layout.name == "lecture" && layout.placements.count == 2)
        #expect(layout.placements[1] == VideoLayout.Placement(
            rect: Region(x: 0.7, y: 0.68, width: 0.28, height: 0.3), z: 1, crop: Region(x: 0.25, y: 0, width: 0.5, height: 1),
            scaling: .fill, border: VideoLayout.Border(width: 4, colour: LayoutColour(red: 255, green: 128, blue: 0))))
        // z puts the second input under the first.
        #expect(layout.drawingOrder == [1, 0])
        #expect(throws: ReelError.self) { try layout.check(inputs: 3) }
        let unnamed = try VideoLayout(parsing: Data(#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}}]}"#.utf8),
                                      source: "one.json", defaultName: "one")
        #expect(unnamed.name == "one" && unnamed.placements[0].z == 0 && unnamed.placements[0].scaling == .fit)
    }

    /// Each mistake is one line naming the file and the field.
    @Test(arguments: [
        (#"{"inputs": [{"rect": {"x": 0.5, "y": 0, "width": 0.6, "height": 1}}]}"#, "inputs[0].rect: the rectangle must"),
        (#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "size": 3}]}"#, "inputs[0].size: unknown field"),
        (#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1}}]}"#, "inputs[0].rect.height: missing"),
        (#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "scaling": "stretch"}]}"#, "scaling: 'stretch' is not one of fit, fill"),
        (#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "border": {"width": 0}}]}"#, "border.width: 0 is out of range"),
        (#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "border": {"width": 2, "colour": "teal"}}]}"#, "colour: colour 'teal'"),
        (#"{"inputs": []}"#, "inputs: a layout places 1 to 8 inputs"),
        (#"{"inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}}], "inputs": []}"#, "is given twice"),
    ])
    func mistakesInALayoutFileAreNamed(_ example: (String, String)) {
        do {
            _ = try VideoLayout(parsing: Data(example.0.utf8), source: "bad.json", defaultName: "bad")
            Issue.record("accepted \(example.0)")
        } catch let error as ReelError {
            #expect(error.message.hasPrefix("bad.json: ") && error.message.contains(example.1), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func fitKeepsTheInputsShapeCentredInItsRectangle() throws {
        // A 4:3 camera in the right half of a 1280x720 picture: 640x480 centred in 640x720.
        let placement = VideoLayout.Placement(rect: Region(x: 0.5, y: 0, width: 0.5, height: 1))
        let geometry = try #require(LayerGeometry(placement, canvasWidth: 1280, canvasHeight: 720, sourceWidth: 640, sourceHeight: 480,
                                                  sampleAspect: Rational(1, 1)))
        #expect(geometry.picture == PixelRect(x: 640, y: 120, width: 640, height: 480))
        #expect(geometry.crop == PixelRect(x: 0, y: 0, width: 640, height: 480))
        // Anamorphic PAL DV (16:9 in 720x576) in a 16:9 rectangle covers it.
        let dv = try #require(LayerGeometry(VideoLayout.Placement(rect: .whole), canvasWidth: 1024, canvasHeight: 576,
                                            sourceWidth: 720, sourceHeight: 576, sampleAspect: Rational(64, 45)))
        #expect(dv.picture == PixelRect(x: 0, y: 0, width: 1024, height: 576))
    }

    @Test func fillCropsTheInputToTheRectanglesShape() throws {
        // 16:9 screen into a square window: the middle 1080x1080 is shown.
        let square = VideoLayout.Placement(rect: Region(x: 0.75, y: 0.5, width: 0.25, height: 0.5), scaling: .fill)
        let geometry = try #require(LayerGeometry(square, canvasWidth: 1280, canvasHeight: 720, sourceWidth: 1920, sourceHeight: 1080,
                                                  sampleAspect: Rational(1, 1)))
        #expect(geometry.picture == PixelRect(x: 960, y: 360, width: 320, height: 360))
        #expect(geometry.crop.height == 1080 && geometry.crop.width == 960 && geometry.crop.x == 480)
        // A crop first (the left half of the camera), then fit: even pixels throughout.
        let cropped = VideoLayout.Placement(rect: .whole, crop: Region(x: 0, y: 0, width: 0.5, height: 1))
        let half = try #require(LayerGeometry(cropped, canvasWidth: 640, canvasHeight: 360, sourceWidth: 641, sourceHeight: 361,
                                              sampleAspect: Rational(0, 1)))
        #expect(half.crop == PixelRect(x: 0, y: 0, width: 320, height: 360))
        #expect([half.picture.x, half.picture.y, half.picture.width, half.picture.height].allSatisfy { $0 % 2 == 0 })
        #expect(half.picture.height == 360 && half.picture.width == 320)
    }

    @Test func aHiddenOrTinyPlacementDrawsNothing() throws {
        let only = try VideoLayout.builtIn("only:1", inputs: 2)
        #expect(LayerGeometry(only.placements[1], canvasWidth: 640, canvasHeight: 360, sourceWidth: 64, sourceHeight: 64,
                              sampleAspect: Rational(1, 1)) == nil)
        let tiny = VideoLayout.Placement(rect: Region(x: 0, y: 0, width: 0.001, height: 0.001))
        #expect(LayerGeometry(tiny, canvasWidth: 640, canvasHeight: 360, sourceWidth: 64, sourceHeight: 64, sampleAspect: Rational(1, 1)) == nil)
    }

    /// The composed picture at t shows each input's last picture by t, known once a later one waits or the
    /// input ended; a 15 fps input beside 30 fps output shows each picture twice.
    @Test func anUnpacedInputsPictureAtATimeIsItsLastOneByThen() {
        var queue = LayerQueue<Int>()
        let empty = queue.advance(to: 0)
        queue.push(0, time: 0, duration: 66_666)
        let alone = queue.advance(to: 0)
        #expect(!empty && !alone, "undecided until a later picture or the end")
        queue.push(1, time: 66_666, duration: 66_666)
        var shown: [Int] = []
        var frame = 0
        while queue.advance(to: Int64(frame) * 33_333) {
            shown.append(queue.current!.picture)
            frame += 1
            if frame == 2 { queue.push(2, time: 133_332, duration: 66_666) }
            if frame == 4 { queue.end() }
            if queue.isOver(at: Int64(frame) * 33_333) { break }
        }
        #expect(shown == [0, 0, 1, 1, 2, 2], "\(shown)")
        #expect(queue.isOver(at: 199_998) && !queue.isOver(at: 199_997))
    }

    @Test func aFullQueueHoldsItsReaderAndTimesNeverGoBack() {
        var queue = LayerQueue<Int>()
        for index in 0..<LayerQueue<Int>.capacity { queue.push(index, time: Int64(index) * 1000, duration: 1000) }
        #expect(queue.isFull)
        queue.push(9, time: 500, duration: 1000)
        #expect(queue.waiting.last?.time == 2000, "a time that goes back is held at the last one")
        let decided = queue.advance(to: 1000)
        #expect(decided && queue.current?.picture == 1 && !queue.isFull)
    }

    @Test func coloursAreVideoRangeYCbCr() throws {
        #expect(try LayoutColour(parsing: "white").lumaChroma(hd: true) == (235, 128, 128))
        #expect(try LayoutColour(parsing: "Black").lumaChroma(hd: false) == (16, 128, 128))
        let red = try LayoutColour(parsing: "#FF0000")
        #expect(red.lumaChroma(hd: true) == (63, 102, 240) && red.lumaChroma(hd: false) == (81, 90, 240))
        #expect(try LayoutColour(parsing: "grey").description == "gray" && LayoutColour(red: 1, green: 2, blue: 3).description == "#010203")
        #expect(throws: ReelError.self) { try LayoutColour(parsing: "#12345") }
    }
}
