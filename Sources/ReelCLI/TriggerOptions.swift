@_spi(ReelTools) import Reel

/// `--trigger motion[:AREA]|sound[:LEVEL]`, `--pre-roll S`, `--post-roll S`, for record.
enum TriggerOptions {
    static let valueOptions: Set<String> = ["--trigger", "--pre-roll", "--post-roll"]

    static let help = """
        triggered recording (movies only around events; OUTPUT names them: {index}, {date}, {time}):
          --trigger motion[:AREA]   a share AREA of the picture (\(NumberText.plain(TriggerRule.thresholdRange(.motion).lowerBound)) to 1, default \(NumberText.plain(TriggerRule.defaultThreshold(.motion)))) changes from one picture to
                                    the next, a flicker or a change of light over the whole picture aside
          --trigger sound[:LEVEL]   the loudest channel at or above LEVEL dBFS RMS (default \(NumberText.plain(TriggerRule.defaultThreshold(.sound))))
                                    An event fires once its condition has lasted \(NumberText.plain(TriggerRule.onSeconds)) s and is over after \(NumberText.plain(TriggerRule.offSeconds)) s without it
                                    (both kinds may be given)
          --pre-roll S           each movie starts S seconds before its event (default \(NumberText.plain(TriggerRule.defaultPreRoll)); from a keyframe at most
                                 \(NumberText.plain(TriggeredRecording.keyframeSeconds)) s earlier)
          --post-roll S          and ends S seconds after it (default \(NumberText.plain(TriggerRule.defaultPostRoll))); an event within it extends the movie
          --keep-free BYTES      delete the oldest of this recording's movies to keep BYTES free (a camera box)
        """

    /// The triggered recording the options ask for, if any.
    static func apply(_ arguments: ParsedArguments, to configuration: inout RecordingConfiguration) throws {
        let texts = arguments.allValues("--trigger")
        guard !texts.isEmpty else {
            if let option = ["--pre-roll", "--post-roll"].first(where: { arguments.value($0) != nil }) {
                throw UsageError("\(option) frames a triggered movie: add --trigger motion or --trigger sound")
            }
            return
        }
        let rules = try texts.map { text in
            do { return try TriggerRule(parsing: text) } catch let error as ReelError { throw UsageError(error.message) }
        }
        var triggers = TriggeredRecording(rules: rules)
        triggers.preRoll = try arguments.number("--pre-roll", in: TriggerRule.rollRange) ?? TriggerRule.defaultPreRoll
        triggers.postRoll = try arguments.number("--post-roll", in: TriggerRule.rollRange) ?? TriggerRule.defaultPostRoll
        triggers.deletesOldestForFreeSpace = arguments.value("--keep-free") != nil
        do { try triggers.validate() } catch let error as ReelError { throw UsageError(error.message) }
        if let option = ["--tier", "--segment-duration", "--segment-size", "--keep-segments", "--max-size", "--still", "--live"]
            .first(where: { arguments.value($0) != nil }) {
            throw UsageError("\(option) is for a continuous movie, and --trigger records movies only around events")
        }
        configuration.triggers = triggers
    }
}
