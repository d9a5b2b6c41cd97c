/// An error a user can act on. `invalidInput` means the request itself is wrong (a bad option, a missing
/// device, a limit that cannot be met) and nothing was written; `runtime` means something failed while
/// working. The CLI maps them to exit codes 2 and 1.
public enum ReelError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidInput(String)
    case runtime(String)

    public var description: String {
        switch self {
        case .invalidInput(let message), .runtime(let message): return message
        }
    }

    public var isInvalidInput: Bool {
        if case .invalidInput = self { return true }
        return false
    }
}
