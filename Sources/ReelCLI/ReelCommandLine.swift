public enum ReelCommandLine { public static func main(_ arguments: [String]) -> Int32 { 0 } }
