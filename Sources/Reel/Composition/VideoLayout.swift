/// Where each video input goes in the composed picture: for each input (in the order the inputs are given) a
/// rectangle of the picture, its place in the stacking order, the part of the input shown, how it is scaled
/// into the rectangle and an optional border. Rectangles and crops are fractions (0 to 1) of the composed
/// picture and of the input's picture, so one layout serves any preset size and any camera mode.
///
/// Built in: `pip` (the first input fills the picture, each other one a quarter-size window in the bottom
/// right corner, the next to its left), `side-by-side` (equal columns), `grid` (the squarest grid of equal
/// cells) and `only:N` (input N alone, full size). A layout file (`LAYOUT.json`, see `VideoLayout(parsing:)`)
/// places each input itself.
public struct VideoLayout: Sendable, Equatable {
    /// A rectangle as fractions of a picture's width and height.
    public struct Region: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        public static let whole = Region(x: 0, y: 0, width: 1, height: 1)

        /// Inside the unit square, with some area.
        var isValid: Bool {
            x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= 1 + 1e-9 && y + height <= 1 + 1e-9
        }
    }

    public enum Scaling: String, Sendable, CaseIterable {
        /// The whole (cropped) picture, as large as fits the rectangle, centred in it; what the rectangle's
        /// shape leaves uncovered shows what lies below.
        case fit
        /// The rectangle covered: the picture is cropped (centred) to the rectangle's shape.
        case fill
    }

    public struct Border: Sendable, Equatable {
        /// Pixels of the composed picture, drawn inside the input's picture.
        public var width: Int
        public var colour: LayoutColour

        public init(width: Int, colour: LayoutColour) {
            self.width = width
            self.colour = colour
        }

        public static let widthRange = 1...64
    }

    /// One input's place.
    public struct Placement: Sendable, Equatable {
        public var rect: Region
        /// Higher is drawn later (on top); equal values keep the inputs' order.
        public var z: Int
        /// The part of the input's picture shown (fractions of it); the whole picture when nil.
        public var crop: Region?
        public var scaling: Scaling
        public var border: Border?

        public init(rect: Region, z: Int = 0, crop: Region? = nil, scaling: Scaling = .fit, border: Border? = nil) {
            self.rect = rect
            self.z = z
            self.crop = crop
            self.scaling = scaling
            self.border = border
        }
    }

    /// How the layout is called (`pip`, `grid`, a file's `name`, else its file name).
    public var name: String
    /// Input i's place is `placements[i]`; an input without one is not shown.
    public var placements: [Placement]

    public init(name: String, placements: [Placement]) {
        self.name = name
        self.placements = placements
    }

    /// The names `VideoLayout.builtIn` knows (`only:N` for each input).
    public static let builtInNames = ["pip", "side-by-side", "grid"]
    /// The layout a session with several video inputs starts with unless told.
    public static let defaultName = "pip"
    /// The most video inputs one session composes.
    public static let maximumInputs = 8

    /// The built-in layout `name` for `inputs` inputs (1 to `maximumInputs`).
    public static func builtIn(_ name: String, inputs: Int) throws -> VideoLayout {
        guard (1...maximumInputs).contains(inputs) else {
            throw ReelError.invalidInput("\(inputs) video inputs: a session composes 1 to \(maximumInputs)")
        }
        switch name {
        case "pip":
            // The windows keep the picture's shape at a quarter of its width, 2.5 % in from the edges.
            let size = 0.25, margin = 0.025
            let windows = (1..<inputs).map { index in
                Placement(rect: Region(x: 1 - Double(index) * (size + margin), y: 1 - margin - size, width: size, height: size),
                          z: index)
            }
            guard windows.allSatisfy({ $0.rect.isValid }) else {
                throw ReelError.invalidInput("layout pip fits at most 4 inputs (one full, three windows): use grid or a layout file")
            }
            return VideoLayout(name: name, placements: [Placement(rect: .whole)] + windows)
        case "side-by-side":
            let width = 1 / Double(inputs)
            return VideoLayout(name: name, placements: (0..<inputs).map { index in
                Placement(rect: Region(x: Double(index) * width, y: 0, width: width, height: 1), z: index)
            })
        case "grid":
            let columns = Int(Double(inputs).squareRoot().rounded(.up))
            let rows = (inputs + columns - 1) / columns
            return VideoLayout(name: name, placements: (0..<inputs).map { index in
                Placement(rect: Region(x: Double(index % columns) / Double(columns), y: Double(index / columns) / Double(rows),
                                       width: 1 / Double(columns), height: 1 / Double(rows)), z: index)
            })
        default:
            if name.hasPrefix("only:"), let number = Int(name.dropFirst(5)) {
                guard (1...inputs).contains(number) else {
                    throw ReelError.invalidInput("layout \(name): there \(inputs == 1 ? "is 1 video input" : "are \(inputs) video inputs"), numbered 1 to \(inputs)")
                }
                return VideoLayout(name: name, placements: (0..<inputs).map { index in
                    index == number - 1 ? Placement(rect: .whole) : Placement(rect: .whole).hidden
                })
            }
            throw ReelError.invalidInput("unknown layout '\(name)': use \(builtInNames.joined(separator: ", ")), only:N or a .json layout file")
        }
    }

    /// The order inputs are drawn in (bottom first): by `z`, then by input.
    var drawingOrder: [Int] {
        placements.indices.filter { placements[$0].isShown }.sorted { (placements[$0].z, $0) < (placements[$1].z, $1) }
    }

    /// Checks that the layout places exactly `inputs` inputs.
    func check(inputs: Int) throws {
        guard placements.count == inputs else {
            throw ReelError.invalidInput("layout \(name) places \(placements.count) input\(placements.count == 1 ? "" : "s"), and the session has \(inputs) video inputs: give a layout for \(inputs)")
        }
    }
}

extension VideoLayout.Placement {
    /// Not drawn at all (`only:N` hides the other inputs; they keep being read).
    var hidden: VideoLayout.Placement {
        var placement = self
        placement.rect = VideoLayout.Region(x: 0, y: 0, width: 0, height: 0)
        return placement
    }

    var isShown: Bool { rect.width > 0 && rect.height > 0 }
}
