/// How much of a picture moved since the one before, from their luma grids (`Frame.lumaGrid`: a few
/// thousand spots read in place): the share of spots whose luma changed by more than `lumaChange`, after
/// taking off the change the whole picture made (the median), so a flicker, an exposure step or a light
/// switched on does not count as motion; one spot's noise is far below the change asked. Pure.
enum MotionMeasure {
    static func changedShare(_ grid: [Float], previous: [Float], lumaChange: Double = TriggerRule.motionLumaChange) -> Double {
        guard grid.count == previous.count, !grid.isEmpty else { return 0 }
        let differences = zip(grid, previous).map { $0 - $1 }
        let sorted = differences.sorted()
        let median = sorted[sorted.count / 2]
        let threshold = Float(lumaChange)
        let changed = differences.reduce(0) { $0 + (abs($1 - median) > threshold ? 1 : 0) }
        return Double(changed) / Double(grid.count)
    }
}
