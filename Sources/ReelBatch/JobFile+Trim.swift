import Reel

extension JobFile {
    /// A trim job's span (`from` and `to`, or `from` and `duration`, seconds) and `mode` (smart, exact or
    /// keyframes; default smart).
    static func parseTrim(_ fields: JSONFields, into job: inout BatchJob) throws {
        guard fields.has("from") else { throw fields.fail("from", "a trim job needs from (where the span starts, in seconds)") }
        let from = try fields.number("from", in: Trimmer.timeRange)
        let to: Double
        switch (fields.has("to"), fields.has("duration")) {
        case (true, false): to = try fields.number("to", in: Trimmer.timeRange)
        case (false, true): to = from + (try fields.number("duration", in: Trimmer.timeRange))
        case (false, false): throw fields.fail("to", "a trim job needs to or duration (where the span ends)")
        case (true, true): throw fields.fail("duration", "give to or duration, not both")
        }
        guard from < to else { throw fields.fail("to", "\(NumberText.plain(to)) is not after from (\(NumberText.plain(from)))") }
        job.trimSpan = from...to
        job.trimMode = try fields.choice("mode", default: TrimMode.smart)
    }
}
