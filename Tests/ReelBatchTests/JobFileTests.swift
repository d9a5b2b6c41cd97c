import Foundation
@testable import Reel
@testable import ReelBatch
import ReelTestSupport
import Testing

@Suite struct JobFileTests {
    let base = URL(fileURLWithPath: "/data/batch")

    func parse(_ json: String) throws -> [BatchJob] {
        try JobFile.parse(Data(json.utf8), source: "jobs.json", baseFolder: base,
                          date: Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func expandsTemplatesAndAppliesDefaults() throws {
        let jobs = try parse("""
            {"defaults": {"preset": "352x288", "maxDuration": 5, "minFree": "100M"},
             "jobs": [{"name": "cam1", "type": "record", "video": "lavfi:testsrc2", "audio": "none",
                       "output": "out/{name}-{preset}-{index}-{date}.mov", "still": "out/{name}.jpg", "maxSize": "10M"},
                      {"name": "t1", "type": "transcode", "input": "in.mp4", "preset": "720p", "output": "/abs/{name}.mov"},
                      {"name": "g1", "type": "grab", "input": "../in.mp4", "at": 1.5, "output": "out/{name}.png"}]}
            """)
        #expect(jobs.count == 3)
        #expect(jobs[0].output == "/data/batch/out/cam1-352x288-1-20270115.mov")
        #expect(jobs[0].still?.path == "/data/batch/out/cam1.jpg")
        #expect(jobs[0].limits == RecordingLimits(maxDuration: 5, maxFileSize: 10_000_000, minFreeDiskSpace: 100_000_000))
        #expect(jobs[0].audio == nil && jobs[0].video?.target == "testsrc2")
        #expect(jobs[1].output == "/abs/t1.mov" && jobs[1].preset?.name == "720p" && jobs[1].input == "/data/batch/in.mp4")
        #expect(jobs[2].kind == .grab && jobs[2].at == 1.5 && jobs[2].input == "/data/in.mp4")
    }

    @Test func readsTiersWithTheirOwnPresetOutputAndSizeLimit() throws {
        let jobs = try parse("""
            {"jobs": [{"name": "t1", "type": "transcode", "input": "in.mp4", "preset": "720p", "output": "out/{name}.mov",
                       "maxSize": "50M", "tiers": [{"preset": "352x288", "output": "out/{name}-{preset}.mov", "maxSize": "5M"},
                                                   {"preset": "low", "output": "/abs/{name}-low.mov"}]}]}
            """)
        #expect(jobs[0].tiers == [
            MovieTier(outputPath: "/data/batch/out/t1-352x288.mov", preset: try PresetLibrary.preset(named: "352x288"), maxFileSize: 5_000_000),
            MovieTier(outputPath: "/abs/t1-low.mov", preset: try PresetLibrary.preset(named: "low")),
        ])
        #expect(jobs[0].limits.maxFileSize == 50_000_000)
    }

    /// Live streams of a record job: folders named like outputs, the segment duration and window checked.
    @Test func readsLiveStreams() throws {
        let jobs = try parse("""
            {"jobs": [{"name": "cam", "type": "record", "video": "lavfi:testsrc2", "maxDuration": 5, "output": "{name}.mov",
                       "live": [{"folder": "live/{name}"}, {"folder": "/srv/hls", "segmentDuration": 2, "keep": "all"},
                                {"folder": "w", "keep": 10}, {"folder": "ll", "partDuration": 0.5},
                                {"folder": "ll6", "partDuration": 1, "segmentDuration": 6}]}]}
            """)
        #expect(jobs[0].live == [LiveStream(folder: "/data/batch/live/cam"),
                                 LiveStream(folder: "/srv/hls", segmentDuration: 2, window: nil),
                                 LiveStream(folder: "/data/batch/w", window: 10),
                                 LiveStream(folder: "/data/batch/ll", segmentDuration: 2, partDuration: 0.5),
                                 LiveStream(folder: "/data/batch/ll6", segmentDuration: 6, partDuration: 1)])
        for (text, problem) in [
            (#"[{"folder": "x", "fps": 5}]"#, "jobs.cam.live[0].fps: not a field of a live stream"),
            (#"[{"folder": "x", "keep": 2}]"#, "jobs.cam.live[0].keep"),
            (#"[{"folder": "x", "segmentDuration": 100}]"#, "jobs.cam.live[0].segmentDuration"),
            (#"[{"folder": "x", "partDuration": 5}]"#, "jobs.cam.live[0].partDuration"),
            (#"[{"folder": "x", "partDuration": 1.5}]"#, "do not fit a 2 s segment twice"),
            (#""x""#, "jobs.cam.live: expected a list of objects"),
        ] {
            let job = #"{"jobs": [{"name": "cam", "type": "record", "maxDuration": 1, "output": "a.mov", "live": "# + text + "}]}"
            #expect { try parse(job) } throws: { "\($0)".contains(problem) }
        }
        #expect { try parse(#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "live": [{"folder": "x"}]}]}"#) }
            throws: { "\($0)".contains("jobs.a.live: not a field of a transcode job") }
    }

    /// Pushes to servers sit beside HLS folders in `live`; their placeholders are filled, and they are no paths.
    @Test func readsLivePushes() throws {
        let jobs = try parse("""
            {"jobs": [{"name": "cam", "type": "record", "video": "lavfi:testsrc2", "maxDuration": 5, "output": "{name}.mov",
                       "live": [{"url": "rtmp://127.0.0.1/live/{name}"}, {"folder": "hls"}, {"url": "srt://127.0.0.1:9000?latency=200"}]}]}
            """)
        #expect(jobs[0].livePushes == [try LivePush(url: "rtmp://127.0.0.1/live/cam"), try LivePush(url: "srt://127.0.0.1:9000?latency=200")])
        #expect(jobs[0].live == [LiveStream(folder: "/data/batch/hls")])
        for (text, problem) in [
            (#"[{"url": "srt://h:1", "keep": 6}]"#, "jobs.cam.live[0].keep: not a field of a pushed live stream (allowed: url)"),
            (#"[{"url": "srt://h"}]"#, "jobs.cam.live[0].url: --live srt://h: an SRT address needs a port"),
            (#"[{"url": "hls"}]"#, "jobs.cam.live[0].url: not a server's address"),
            (#"[{"url": "rtmp://h/{nom}/k"}]"#, "jobs.cam.live[0].url: unknown placeholder"),
        ] {
            let job = #"{"jobs": [{"name": "cam", "type": "record", "maxDuration": 1, "output": "a.mov", "live": "# + text + "}]}"
            #expect { try parse(job) } throws: { "\($0)".contains(problem) }
        }
    }

    @Test func readsAlarms() throws {
        let jobs = try parse("""
            {"jobs": [{"name": "cam", "type": "record", "video": "lavfi:testsrc2", "maxDuration": 5, "output": "{name}.mov",
                       "alarms": ["silence:-50:5", "black"], "alarmExit": true}]}
            """)
        #expect(jobs[0].alarms == [AlarmRule(kind: .silence, threshold: -50, seconds: 5), AlarmRule(kind: .black)] && jobs[0].alarmExit)
        for (fields, problem) in [
            (#""alarms": ["loud"]"#, "jobs.cam.alarms: --alarm loud: unknown kind"),
            (#""alarms": ["silence", "silence:-40"]"#, "jobs.cam.alarms: silence is given twice"),
            (#""alarmExit": true"#, "jobs.cam.alarmExit: needs alarms"),
            (#""alarms": ["black"], "alarmExit": "yes""#, "jobs.cam.alarmExit: expected true or false"),
        ] {
            let job = #"{"jobs": [{"name": "cam", "type": "record", "maxDuration": 1, "output": "a.mov", "# + fields + "}]}"
            #expect { try parse(job) } throws: { "\($0)".contains(problem) }
        }
        #expect { try parse(#"{"jobs": [{"name": "t", "type": "transcode", "input": "x", "output": "a.mov", "alarms": ["black"]}]}"#) }
            throws: { "\($0)".contains("jobs.t.alarms: not a field of a transcode job") }
    }

    @Test func readsAReplayBuffer() throws {
        let jobs = try parse("""
            {"jobs": [{"name": "cam", "type": "record", "video": "lavfi:testsrc2", "maxDuration": 5, "output": "{name}.mov",
                       "control": "cam.sock", "replayBuffer": 30, "replayBufferSize": "64M"}]}
            """)
        #expect(jobs[0].replayBuffer == 30 && jobs[0].replayBufferSize == 64_000_000)
        for (fields, problem) in [
            (#""replayBuffer": 0.5"#, "jobs.cam.replayBuffer"),
            (#""replayBuffer": "long""#, "jobs.cam.replayBuffer"),
            (#""replayBufferSize": "64M""#, "jobs.cam.replayBufferSize: bounds a replay buffer"),
            (#""replayBuffer": 10, "replayBufferSize": "10k""#, "jobs.cam.replayBufferSize"),
        ] {
            let job = #"{"jobs": [{"name": "cam", "type": "record", "maxDuration": 1, "output": "a.mov", "# + fields + "}]}"
            #expect { try parse(job) } throws: { "\($0)".contains(problem) }
        }
        #expect { try parse(#"{"jobs": [{"name": "t", "type": "transcode", "input": "x", "output": "a.mov", "replayBuffer": 5}]}"#) }
            throws: { "\($0)".contains("jobs.t.replayBuffer: not a field of a transcode job") }
    }

    @Test func readsATrim() throws {
        let jobs = try parse("""
            {"jobs": [{"name": "a", "type": "trim", "input": "in.mov", "from": 2, "to": 4.5, "mode": "keyframes", "output": "{name}.mov"},
                      {"name": "b", "type": "trim", "input": "in.mov", "from": 1, "duration": 2, "mode": "keyframes", "output": "{name}.mov"}]}
            """)
        #expect(jobs[0].kind == .trim && jobs[0].trimSpan == 2...4.5 && jobs[0].trimMode == .keyframes && jobs[0].input?.hasSuffix("/in.mov") == true)
        #expect(jobs[1].trimSpan == 1...3 && jobs[1].preset == nil)
        let smart = try parse(#"{"jobs": [{"name": "s", "type": "trim", "input": "in.mov", "from": 1, "to": 2, "output": "{name}.mov"}]}"#)
        #expect(smart[0].trimMode == .smart, "a trim is smart unless the job says otherwise")
        for (fields, problem) in [
            (#""to": 4, "mode": "keyframes""#, "jobs.t.from: a trim job needs from"),
            (#""from": 1, "mode": "keyframes""#, "jobs.t.to: a trim job needs to or duration"),
            (#""from": 1, "to": 2, "duration": 1, "mode": "keyframes""#, "jobs.t.duration: give to or duration"),
            (#""from": 3, "to": 2, "mode": "keyframes""#, "jobs.t.to: 2 is not after from"),
            (#""from": 1, "to": 2, "mode": "fast""#, "jobs.t.mode"),
            (#""from": 1, "to": 2, "mode": "keyframes", "preset": "720p""#, "jobs.t.preset: not a field of a trim job"),
        ] {
            let job = #"{"jobs": [{"name": "t", "type": "trim", "input": "in.mov", "output": "a.mov", "# + fields + "}]}"
            #expect { try parse(job) } throws: { "\($0)".contains(problem) }
        }
        #expect { try parse(#"{"jobs": [{"name": "t", "type": "trim", "input": "in.mov", "output": "a.jpg", "from": 1, "to": 2, "mode": "keyframes"}]}"#) }
            throws: { "\($0)".contains("jobs.t.output") }
    }

    @Test(arguments: [
        (#"{"jobs": [{"name": "a", "type": "grab", "input": "x.mp4", "output": "a.jpg", "colour": 1}]}"#, "jobs.a.colour"),
        (#"{"jobs": [{"name": "a", "type": "grab", "input": "x.mp4", "output": "a.jpg", "preset": "720p"}]}"#, "jobs.a.preset: not a field of a grab job"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": 5, "output": "a.mov"}]}"#, "jobs.a.input: expected a non-empty string"),
        (#"{"jobs": [{"name": "a", "type": "record", "video": "lavfi:testsrc2", "output": "a.mov"}]}"#, "jobs.a.maxDuration: a record job needs"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov"}, {"name": "a", "type": "transcode", "input": "y", "output": "b.mov"}]}"#, "jobs.a.name: 'a' is already used"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "o.mov"}, {"name": "b", "type": "transcode", "input": "y", "output": "o.mov"}]}"#, "jobs.b.output"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "{nom}.mov"}]}"#, "unknown placeholder"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mp4"}]}"#, "must end in .mov"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "preset": "8k"}]}"#, "jobs.a.preset: unknown preset"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "maxSize": "huge"}]}"#, "jobs.a.maxSize"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "fragmentInterval": 0.1}]}"#, "jobs.a.fragmentInterval: use 0"),
        (#"{"jobs": [{"name": "a", "type": "record", "maxDuration": 1, "deviceTimeout": -1, "output": "a.mov"}]}"#, "jobs.a.deviceTimeout"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "deviceTimeout": 3}]}"#, "jobs.a.deviceTimeout"),
        (#"{"jobs": [{"name": "a", "type": "dance", "input": "x", "output": "a.mov"}]}"#, "jobs.a.type: 'dance' is not one of"),
        (#"{"jobs": [{"name": "a", "type": "record", "video": "cam0", "maxDuration": 1, "output": "a.mov"}]}"#, "jobs.a.video"),
        (#"{"jobs": [{"type": "grab", "input": "x", "output": "a.jpg"}]}"#, "jobs[0].name: missing"),
        (#"{"jobs": {"name": "a"}}"#, "jobs: expected an array"),
        (#"{"defaults": {"name": "x"}, "jobs": []}"#, "defaults.name: unknown field"),
        (#"{"jobs": [], "extra": 1}"#, "extra: unknown field"),
        (#"{"jobs": [ "#, "not valid JSON"),
        (#"{"jobs": [{"name": "a", "type": "record", "maxDuration": 1, "output": "a.mov", "controls": "focus=auto"}]}"#, "jobs.a.controls: expected a list"),
        (#"{"jobs": [{"name": "a", "type": "record", "maxDuration": 1, "output": "a.mov", "controls": ["focus"]}]}"#, "jobs.a.controls: 'focus' is not NAME=VALUE"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "controls": ["zoom=2"]}]}"#, "jobs.a.controls"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "tiers": {"preset": "low"}}]}"#, "jobs.a.tiers: expected a list of objects"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "tiers": [{"preset": "low", "output": "b.mov", "fps": 5}]}]}"#, "jobs.a.tiers[0].fps: not a field of a tier"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "tiers": [{"preset": "8k", "output": "b.mov"}]}]}"#, "jobs.a.tiers[0].preset: unknown preset"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "tiers": [{"preset": "low", "output": "b.mp4"}]}]}"#, "jobs.a.tiers[0].output"),
        (#"{"jobs": [{"name": "a", "type": "transcode", "input": "x", "output": "a.mov", "tiers": [{"preset": "low", "output": "a.mov"}]}]}"#, "would write the same file as output"),
        (#"{"jobs": [{"name": "a", "type": "grab", "input": "x", "output": "a.jpg", "tiers": []}]}"#, "jobs.a.tiers: not a field of a grab job"),
    ])
    func rejectsMalformedJobFilesNamingJobAndField(json: String, message: String) {
        do {
            _ = try parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect("\(error)".hasPrefix("jobs.json: ") && "\(error)".contains(message), "got: \(error)")
        }
    }

    @Test func recordJobsCarryCameraControlsInOrder() throws {
        let jobs = try parse(#"{"jobs": [{"name": "cam", "type": "record", "video": "v4l2:/dev/video0", "maxDuration": 5, "output": "c.mov", "controls": ["focus_automatic_continuous=0", "focus_absolute=120", "torch=on"]}]}"#)
        #expect(jobs[0].cameraControls.map { "\($0.name)=\($0.value)" } == ["focus_automatic_continuous=0", "focus_absolute=120", "torch=on"])
    }

    @Test func shardsPartitionTheJobs() throws {
        let jobs = (1...20).map { index in
            BatchJob(index: index, name: "j\(index)", kind: .grab, output: "/o/\(index).jpg", video: nil, audio: nil,
                     input: "/i.mp4", preset: nil, limits: RecordingLimits(), still: nil, orientation: .landscapeRight,
                     at: 0, quality: 90)
        }
        for count in [1, 3, 7] {
            var seen: [Int: Int] = [:]
            for index in 1...count {
                let shard = try BatchRunner.Shard(parsing: "\(index)/\(count)")
                for job in jobs where shard.contains(job) { seen[job.index, default: 0] += 1 }
            }
            #expect(seen.count == 20 && seen.values.allSatisfy { $0 == 1 }, "\(count) shards")
        }
        for bad in ["0/3", "4/3", "1/0", "a/b", "2"] {
            #expect(throws: ReelError.self) { try BatchRunner.Shard(parsing: bad) }
        }
    }

    @Test func tenThousandJobsValidateQuickly() throws {
        let jobs = (0..<10_000).map { #"{"name": "j\#($0)", "type": "transcode", "input": "in.mp4", "output": "out/{name}.mov"}"# }
        let json = #"{"defaults": {"preset": "352x288", "minFree": "1G"}, "jobs": ["# + jobs.joined(separator: ",") + "]}"
        let start = Date()
        let parsed = try parse(json)
        let seconds = Date().timeIntervalSince(start)
        #expect(parsed.count == 10_000)
        // The speed target (under 1 s in a release build) is checked by the benchmark harness; this prints it.
        print("validated 10,000 jobs in \(String(format: "%.3f", seconds)) s (debug build)")
    }

    /// Placeholders are filled in one pass; an unknown one is refused, a lone brace kept.
    @Test func placeholdersAreFilledInOnePass() {
        let values = ["name": "talk", "preset": "720p", "index": "3", "date": "2026-12-01"]
        #expect(JobFile.fill("out/{name}-{preset}-{index}.mov", values) == "out/talk-720p-3.mov")
        #expect(JobFile.fill("{date}/{name}{name}.mov", values) == "2026-12-01/talktalk.mov")
        #expect(JobFile.fill("plain.mov", values) == "plain.mov")
        #expect(JobFile.fill("odd{.mov", values) == "odd{.mov")
        #expect(JobFile.fill("}{name}", values) == "}talk")
        #expect(JobFile.fill("{nom}.mov", values) == nil)
        #expect(JobFile.fill("{na{name}}.mov", values) == nil)
        #expect(JobFile.fill("{}.mov", values) == nil)
    }
}
