// The umbrella module: `import SwiftRTC` brings in every layer. Import single layers
// (`SwiftRTCSDP`, `SwiftRTCRTP`, ...) to depend on less.
@_exported import SwiftRTCCalls
@_exported import SwiftRTCCodecs
@_exported import SwiftRTCCongestion
@_exported import SwiftRTCCore
@_exported import SwiftRTCDTLS
@_exported import SwiftRTCDataChannel
@_exported import SwiftRTCICE
@_exported import SwiftRTCJanus
@_exported import SwiftRTCMedia
@_exported import SwiftRTCPeer
@_exported import SwiftRTCRTP
@_exported import SwiftRTCReceive
@_exported import SwiftRTCSCTP
@_exported import SwiftRTCSDP
@_exported import SwiftRTCSRTP
@_exported import SwiftRTCSignaling

/// Facts about this build of SwiftRTC.
public enum SwiftRTCInfo {
    /// SwiftRTC's version.
    public static let version = "0.1.0"

    /// The C libraries underneath, one `name version` line each.
    public static var libraryVersions: [String] {
        [
            IceLibrary.version, DtlsLibrary.version, SrtpLibrary.version, CodecLibrary.opusVersion,
            CodecLibrary.vpxVersion,
        ]
    }
}
