import Foundation
@testable import Reel
import Testing

/// Issue 24, items 1-5 and 16: every file a command writes is known and checked before it writes any.
@Suite struct OutputPlanTests {
    @Test func patternsMatchWhatSegmentNamingMakes() {
        let pattern = NamePattern(template: "/d/cam-{date}-{time}-{index}.mov")
        let naming = SegmentNaming(template: "/d/cam-{date}-{time}-{index}.mov")
        for index in [1, 42, 999, 1000, 123_456] {
            #expect(pattern.matches(naming.path(index: index, date: Date())), "\(index)")
        }
        #expect(!pattern.matches("/d/cam-2026-12-01-10-00-00-01.mov"), "two digits are no index")
        #expect(!pattern.matches("/d/cam-2026-12-01-10-00-00-001.mp4"))
        #expect(!pattern.matches("/e/cam-2026-12-01-10-00-00-001.mov"))
        #expect(NamePattern(template: "/d/s-{index}.mov").matches("/d/s-002.mov"))
        #expect(!NamePattern(template: "/d/s-{index}.mov").matches("/d/s-002.mov.partial"))
    }

    @Test func overlapsAreFoundBetweenPatterns() {
        let segments = NamePattern(template: SegmentNaming(template: "/d/r.mov").template)
        #expect(segments.overlaps(NamePattern(template: "/d/r-{index}.mov")), "a tier named like the movie's segments")
        #expect(segments.overlaps(NamePattern(literal: "/d/r-002.mov")))
        #expect(!segments.overlaps(NamePattern(literal: "/d/r.mov")))
        #expect(!segments.overlaps(NamePattern(template: "/d/r-low-{index}.mov")))
        #expect(!NamePattern(template: "/d/{date}-{index}.mov").overlaps(NamePattern(template: "/d/2026-{index}-01-001.mov")),
                "2026-123-01-001 is no date")
        #expect(NamePattern(template: "/d/{date}-{index}.mov").overlaps(NamePattern(template: "/d/2026-12-{index}.mov")) == false)
        #expect(NamePattern(template: "/d/{date}-{index}.mov").matches("/d/2026-12-01-777.mov"))
        #expect(!NamePattern(template: "/d/{time}.mov").overlaps(NamePattern(template: "/d/{date}.mov")))
        #expect(NamePattern(template: "/d/a{index}{index}.mov").overlaps(NamePattern(literal: "/d/a001002.mov")))
        #expect(!NamePattern(template: "/d/a{index}{index}.mov").overlaps(NamePattern(literal: "/d/a00100.mov")))
    }

    @Test func onlyNamesSegmentNamingMakesCountAsItsFiles() {
        for (name, made) in [("/d/l-001.mov", true), ("/d/l-999.mov", true), ("/d/l-1000.mov", true), ("/d/l-000.mov", false),
                             ("/d/l-0001.mov", false), ("/d/l-01000.mov", false)] {
            #expect(OutputName.isMade(name, by: "/d/l-{index}.mov") == made, "\(name)")
        }
    }

    @Test func plainPathsAreKnownWithoutStandardizing() {
        for (path, plain) in [("/a/b.mov", true), ("/b.mov", true), ("/a//b.mov", false), ("/a/./b.mov", false), ("/a/../b.mov", false),
                              ("/a/b/", false), ("a/b.mov", false), ("/", false), ("/a/.b.mov", true), ("/a/..b", true), ("/a/b/..", false)] {
            #expect(OutputName.isPlainAbsolute(path) == plain, "\(path)")
        }
        let root = FileManager.default.temporaryDirectory.path
        let dotted = OutputName.resolved("\(root)/./x/../y.mov")
        #expect(dotted.hasSuffix("/y.mov") && !dotted.contains(".."), "\(dotted)")
    }

    @Test func freeNamesGoBesideATakenOne() {
        let taken: Set<String> = ["/d/a-002.mov", "/d/a-002 (2).mov"]
        #expect(SegmentNaming.freeName(for: "/d/a-002.mov") { !taken.contains($0) } == "/d/a-002 (3).mov")
        #expect(SegmentNaming.freeName(for: "/d/a-003.mov") { !taken.contains($0) } == "/d/a-003.mov")
        #expect(SegmentNaming.freeName(for: "/d.x/a") { $0 != "/d.x/a" } == "/d.x/a (2)")
    }

    @Test func hiddenNamesOfLongNamesStayLegal() {
        let long = String(repeating: "é", count: 126) + ".mo"  // 255 bytes
        let hidden = URL(fileURLWithPath: CaptureSession.partialPath(for: "/d/\(long)")).lastPathComponent
        #expect(hidden.utf8.count <= 255 && hidden.hasPrefix(".é") && hidden.hasSuffix(".partial"))
        let other = URL(fileURLWithPath: CaptureSession.partialPath(for: "/d/\(long.dropLast())x")).lastPathComponent
        #expect(other != hidden, "names that share their start get different hidden names")
        #expect(CaptureSession.partialPath(for: "/d/a.mov") == "/d/.a.mov.partial")
    }

    @Test func everyCollisionIsFoundBeforeWriting() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: "\(folder)/src-002.mov", contents: Data([1])))
        let segments = Segmentation(duration: 4)

        var input = OutputPlan()
        input.addMovie("\(folder)/src.mov", segmentation: segments, writesHidden: true, role: "output")
        input.inputs = ["\(folder)/sub/../src-002.mov"]
        #expect(throws: ReelError.self) { try input.check(overwrite: true) }

        var existing = OutputPlan()
        existing.addMovie("\(folder)/src.mov", segmentation: segments, writesHidden: false, role: "output")
        let error = try #require(throws: ReelError.self) { try existing.check(overwrite: false) }
        #expect(error.kind == .outputExists && error.message.contains("src-002.mov"))
        try existing.check(overwrite: true)

        var tier = OutputPlan()
        tier.addMovie("\(folder)/r.mov", segmentation: segments, writesHidden: false, role: "output")
        tier.addMovie("\(folder)/r-{index}.mov", segmentation: segments, writesHidden: false, role: "tier low")
        #expect(throws: ReelError.self) { try tier.checkNames() }

        var still = OutputPlan()
        still.addMovie("\(folder)/r.mov", segmentation: segments, writesHidden: false, role: "output")
        still.addStill("\(folder)/r-001.mov", role: "still", replaces: true)
        #expect(throws: ReelError.self) { try still.checkNames() }

        var long = OutputPlan()
        long.addMovie("\(folder)/\(String(repeating: "a", count: 250)).mov", segmentation: segments, writesHidden: true, role: "output")
        #expect(throws: ReelError.self) { try long.checkNames() }
        var fits = OutputPlan()
        fits.addMovie("\(folder)/\(String(repeating: "a", count: 248)).mov", segmentation: nil, writesHidden: true, role: "output")
        try fits.checkNames()
    }

    @Test func collisionsAcrossManyJobs() {
        var plans: [OutputPlan] = (0..<10_000).map { index in
            var plan = OutputPlan()
            plan.addMovie("/out/job\(index).mov", segmentation: nil, writesHidden: true, role: "output")
            plan.inputs = ["/in/job\(index).mp4"]
            return plan
        }
        #expect(OutputCollisions.first(among: plans).map { _ in true } == nil)
        var segmented = OutputPlan()
        segmented.addMovie("/out/job.mov", segmentation: Segmentation(duration: 5), writesHidden: true, role: "output")
        plans.append(segmented)
        plans[7].names = [OutputName(file: "/out/job-007.mov", role: "output", writesHidden: true)]
        guard case .sameFile(let first, let second)? = OutputCollisions.first(among: plans) else {
            Issue.record("the segments of the last job meet job 7's output")
            return
        }
        #expect(Set([first.plan, second.plan]) == [7, 10_000])
        plans[7].names = []
        plans[3].inputs = ["/out/job-123.mov"]
        guard case .input(_, _, let inputOf)? = OutputCollisions.first(among: plans) else {
            Issue.record("the segments of the last job would write job 3's input")
            return
        }
        #expect(inputOf == 3)
    }
}
