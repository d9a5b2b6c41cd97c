@_spi(ReelTools) import Reel

/// A small strict command-line parser: `--name value`, `--name=value`, flags, and positionals. Unknown
/// options and missing values are usage errors that name the option.
struct ParsedArguments {
    private(set) var values: [String: String] = [:]
    /// Every value of each option, in order (for the options that may be repeated).
    private(set) var repeatedValues: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    struct Specification {
        var valueOptions: Set<String>
        var flagOptions: Set<String>
    }

    init(_ arguments: [String], command: String, specification: Specification) throws {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if specification.flagOptions.contains(name) {
                if inlineValue != nil { throw UsageError("\(command): \(name) takes no value") }
                flags.insert(name)
            } else if specification.valueOptions.contains(name) {
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("\(command): \(name) needs a value") }
                    values[name] = arguments[index]
                    index += 1
                }
                repeatedValues[name, default: []].append(values[name]!)
            } else {
                throw UsageError("\(command): unknown option \(name) (see reel \(command) --help)")
            }
        }
    }

    func value(_ name: String) -> String? { values[name] }
    func allValues(_ name: String) -> [String] { repeatedValues[name] ?? [] }

    /// `--camera-control NAME=VALUE`, repeatable, in order.
    func cameraControls() throws -> [CameraControlSetting] {
        try allValues("--camera-control").map { text in
            guard let setting = CameraControlSetting(parsing: text) else {
                throw UsageError("--camera-control '\(text)' is not NAME=VALUE (reel devices lists a camera's controls)")
            }
            return setting
        }
    }
    func has(_ name: String) -> Bool { flags.contains(name) }
}

/// A mistake in how the command was called: printed as one line, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ParsedArguments {
    /// A number option within its range (the library owns each range), or a usage error naming the option,
    /// what it got and the range: `--max-duration '9e12' is not a number of seconds from 0.001 to 10000000`.
    func number(_ name: String, in range: ClosedRange<Double>, unit: String = "seconds") throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = NumberText.decimal(text), range.contains(number) else {
            throw UsageError("\(name) '\(text)' is not a number of \(unit) from \(NumberText.plain(range.lowerBound)) to \(NumberText.plain(range.upperBound))")
        }
        return number
    }

    /// A whole-number option within its range, or a usage error naming the option and the range.
    /// A size in bytes with FFmpeg's suffixes (`50M`, `1.5G`, `512Mi`), more than 0 unless `allowsZero`.
    func byteCount(_ name: String, examples: String, allowsZero: Bool = false) throws -> Int64? {
        guard let text = value(name) else { return nil }
        guard let bytes = ByteCount.parse(text), bytes > 0 || (allowsZero && bytes == 0) else {
            throw UsageError("\(name) '\(text)' is not a size in bytes (e.g. \(examples))")
        }
        return bytes
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(name) '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
