import FoundationEssentials

extension VideoLayout {
    /// A layout by name (`pip`, `side-by-side`, `grid`, `only:N`) or a `.json` layout file, for `inputs` inputs.
    public static func named(_ nameOrPath: String, inputs: Int) throws -> VideoLayout {
        guard nameOrPath.lowercased().hasSuffix(".json") else { return try builtIn(nameOrPath, inputs: inputs) }
        let layout = try load(path: nameOrPath)
        try layout.check(inputs: inputs)
        return layout
    }

    /// Reads a layout file:
    /// ```
    /// {"name": "lecture",
    ///  "inputs": [{"rect": {"x": 0, "y": 0, "width": 1, "height": 1}},
    ///             {"rect": {"x": 0.7, "y": 0.68, "width": 0.28, "height": 0.3}, "z": 1, "scaling": "fill",
    ///              "crop": {"x": 0.25, "y": 0, "width": 0.5, "height": 1}, "border": {"width": 4, "colour": "white"}}]}
    /// ```
    /// `inputs[i]` places video input i; only `rect` is required (`z`: input order, `scaling`: fit, no crop, no
    /// border); `name` defaults to the file's name without `.json`.
    public static func load(path: String) throws -> VideoLayout {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReelError.invalidInput("layout file \(ErrorText.path(path)) cannot be read: check the path")
        }
        let fileName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return try VideoLayout(parsing: data, source: ErrorText.path(path), defaultName: fileName)
    }

    init(parsing data: Data, source: String, defaultName: String) throws {
        let top = try JSONFields.parse(data, source: source)
        try top.rejectUnknownKeys(allowed: ["name", "inputs"])
        let inputs = try top.objects("inputs")
        guard (1...VideoLayout.maximumInputs).contains(inputs.count) else {
            throw top.fail("inputs", "a layout places 1 to \(VideoLayout.maximumInputs) inputs, this one \(inputs.count)")
        }
        let placements = try inputs.enumerated().map { index, fields -> Placement in
            try fields.rejectUnknownKeys(allowed: ["rect", "z", "crop", "scaling", "border"])
            let border = try fields.has("border") ? VideoLayout.border(try fields.nested("border")) : nil
            return Placement(rect: try VideoLayout.region(try fields.nested("rect")),
                             z: try fields.optionalInteger("z", in: -1000...1000) ?? index,
                             crop: try fields.has("crop") ? VideoLayout.region(try fields.nested("crop")) : nil,
                             scaling: try fields.choice("scaling", default: Scaling.fit), border: border)
        }
        self.init(name: try top.optionalString("name") ?? defaultName, placements: placements)
    }

    private static func region(_ fields: JSONFields) throws -> Region {
        try fields.rejectUnknownKeys(allowed: ["x", "y", "width", "height"])
        let region = Region(x: try fields.number("x", in: 0...1), y: try fields.number("y", in: 0...1),
                            width: try fields.number("width", in: 0...1), height: try fields.number("height", in: 0...1))
        guard region.isValid else {
            throw ReelError.invalidInput("\(fields.source): \(fields.path): the rectangle must have an area and lie inside 0...1 (x + width and y + height at most 1)")
        }
        return region
    }

    private static func border(_ fields: JSONFields) throws -> Border {
        try fields.rejectUnknownKeys(allowed: ["width", "colour"])
        let colour: LayoutColour
        do {
            colour = try LayoutColour(parsing: try fields.optionalString("colour") ?? "white")
        } catch let error as ReelError {
            throw fields.fail("colour", error.message)
        }
        return Border(width: try fields.integer("width", in: Border.widthRange), colour: colour)
    }
}
