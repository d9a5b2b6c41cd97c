public enum ReelVersion { public static let current = "0.1.0" }
