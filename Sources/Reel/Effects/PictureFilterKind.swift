/// A picture filter applied to an input as it is captured, before it is scaled (libavfilter's, one pass, live):
/// `--filter NAME` and a preset's `"filters"`. With several video inputs each input is filtered on its own.
public enum PictureFilterKind: String, Sendable, CaseIterable, Codable {
    /// Interlaced cameras and DV made progressive: bwdif, one picture per frame (a frame's two fields become one
    /// picture, the rate stays).
    case deinterlace
    /// A shaking camera steadied: deshake (motion search on the luma, the picture moved back; edges mirrored).
    case stabilize
    /// Sensor noise smoothed: hqdn3d (spatial and temporal, the defaults).
    case denoise

    /// The libavfilter chain.
    var filterChain: String {
        switch self {
        case .deinterlace: "bwdif=mode=send_frame:parity=auto:deint=all"
        case .stabilize: "deshake=edge=mirror"
        case .denoise: "hqdn3d"
        }
    }

    var filterName: String {
        switch self {
        case .deinterlace: "bwdif"
        case .stabilize: "deshake"
        case .denoise: "hqdn3d"
        }
    }

    /// The chain for several, in order; nil for none.
    static func chain(_ filters: [PictureFilterKind]) -> String? {
        filters.isEmpty ? nil : filters.map(\.filterChain).joined(separator: ",")
    }

    public init(parsing text: String) throws {
        guard let kind = PictureFilterKind(rawValue: text) else {
            throw ReelError.invalidInput("unknown picture filter '\(text)': use \(PictureFilterKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = kind
    }
}
