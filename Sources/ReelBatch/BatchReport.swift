import Reel

/// What happened to every job of a batch, as `reel batch --report` writes it.
public struct BatchReport: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        case succeeded, failed, skipped, notRun, notInShard
    }

    public struct Entry: Sendable, Codable, Equatable {
        public var name: String
        public var type: BatchJob.Kind
        public var status: Status
        public var output: String
        /// For record and transcode jobs that ran: the same fields as `record --json`.
        public var result: RecordingResult?
        /// For trim jobs that ran: the same fields as `trim --json`.
        public var trim: TrimResult?
        /// For join jobs that ran: the same fields as `join --json`.
        public var join: JoinResult?
        public var error: String?
        /// Wall seconds the job took (0 when it did not run).
        public var elapsed: Double
    }

    public var jobs: [Entry]
    public var succeeded: Int
    public var failed: Int
    public var skipped: Int
    public var notRun: Int
    public var notInShard: Int
    public var elapsed: Double
    /// "I/N" when only one shard of the jobs ran.
    public var shard: String?

    init(jobs: [Entry], elapsed: Double, shard: String?) {
        self.jobs = jobs
        succeeded = jobs.filter { $0.status == .succeeded }.count
        failed = jobs.filter { $0.status == .failed }.count
        skipped = jobs.filter { $0.status == .skipped }.count
        notRun = jobs.filter { $0.status == .notRun }.count
        notInShard = jobs.filter { $0.status == .notInShard }.count
        self.elapsed = elapsed
        self.shard = shard
    }

    public var allSucceeded: Bool { failed == 0 && notRun == 0 }
}
