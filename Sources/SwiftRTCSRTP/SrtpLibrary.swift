import CSRTP
import CSRTPNettle
import SwiftRTCCore
import Synchronization

/// The libsrtp build that SwiftRTC's SRTP runs on, and its process-global crypto kernel.
///
/// libsrtp is initialised lazily, once, by the first session, through `swiftrtc_srtp_init`
/// (CSRTPNettle): `srtp_init` is not thread-safe, so any other code in the process that uses
/// libsrtp directly must initialise it through that function too.
///
/// The crypto kernel is global: a new session gets whichever cipher and auth implementations
/// are installed at that moment, and keeps them. So every kernel change and every
/// `srtp_create` runs under one lock here, and a session created with a given ``SrtpCrypto``
/// gets exactly that, whatever other sessions asked for.
public enum SrtpLibrary {
    /// libsrtp's version string, e.g. `libsrtp2 2.5.0`.
    public static var version: String { String(cString: srtp_get_version_string()) }

    private struct Kernel {
        var initialised = false
        var installed = SrtpCrypto.stock
        /// Set when libsrtp refused the nettle replacements (their self-test failed).
        var nettleRefused: Int32?
    }

    private static let kernel = Mutex(Kernel())
    private static let logger = SwiftRTCLogging.logger("srtp")

    /// Runs `body` with libsrtp initialised and `crypto` installed (or `.stock` if libsrtp
    /// refused the nettle types), under the kernel lock; passes the implementation in force.
    static func withKernel<Result>(
        _ crypto: SrtpCrypto,
        _ body: (SrtpCrypto) throws(SrtpSessionError) -> Result
    ) throws(SrtpSessionError) -> Result {
        try kernel.withLock { (state: inout Kernel) throws(SrtpSessionError) -> Result in
            if !state.initialised {
                let status = swiftrtc_srtp_init()
                guard status == 0 else { throw .library(status) }
                state.initialised = true
            }
            let wanted = state.nettleRefused == nil ? crypto : .stock
            if wanted != state.installed {
                let status = wanted == .nettle ? swiftrtc_srtp_install_nettle() : swiftrtc_srtp_install_stock()
                if status == 0 {
                    state.installed = wanted
                } else if wanted == .nettle {
                    state.nettleRefused = status
                    logger.warning(
                        "libsrtp refused the nettle crypto replacements (status \(status)); using stock libsrtp crypto"
                    )
                } else {
                    throw .library(status)
                }
            }
            return try body(state.installed)
        }
    }
}
