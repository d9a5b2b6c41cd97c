/// Numbers as people write them in options and ranges: whole numbers without a decimal point
/// (10000000, not 1e+07), others as Swift prints them (0.001).
public enum NumberText {
    public static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 9e15 ? String(Int64(value)) : String(value)
    }
}
