extension IceAgent {
    /// Which side decides the selected pair (RFC 8445 section 6.1.1): the offerer of a
    /// WebRTC session controls (unless the peer is ICE-lite).
    public enum Role: Sendable, Hashable {
        case controlling, controlled
    }

    /// Which candidates may be used (`RTCIceTransportPolicy`).
    public enum TransportPolicy: Sendable, Hashable {
        /// Host, server-reflexive and relayed candidates.
        case all
        /// Only relayed candidates: the peer never learns a local or public address.
        case relay
    }

    /// How long silence from the peer may last (RFC 7675 consent freshness).
    ///
    /// libnice's own consent freshness is off: libnice 0.1.21 declares consent lost and stops
    /// sending after 10 s without a consent response, which two lost exchanges in a row cause
    /// at 10-20% loss while media flows. The agent watches the datagrams that arrive instead:
    /// in a WebRTC session RTP, RTCP or DTLS always flow, so silence means the peer is gone
    /// (libnice still answers the peer's consent checks). Once the agent's user requires it
    /// (``IceAgent/requireAuthenticatedConsent()``: a peer connection does once SRTP is keyed)
    /// only datagrams proved authentic count, so that forged or garbage datagrams on the pair
    /// do not hold it up. After ``disconnectedAfter`` without a datagram that counts the state
    /// becomes ``IceConnectionState/disconnected`` (and returns when
    /// traffic resumes); after ``failedAfter``, or when libnice fails the component, it
    /// becomes ``IceConnectionState/failed`` until an ICE restart.
    public struct ConsentTiming: Sendable, Hashable {
        /// Silence before `disconnected`. Default 5 s.
        public var disconnectedAfter: Duration
        /// Silence before `failed`. Default 30 s, the consent timeout of RFC 7675 section 5.1.
        /// Also how long a controlled agent whose checks succeeded waits for the controlling
        /// peer's nomination (which comes once the answer has reached that peer).
        public var failedAfter: Duration

        /// Creates a timing; `failedAfter` is raised to `disconnectedAfter` if it is shorter.
        public init(disconnectedAfter: Duration = .seconds(5), failedAfter: Duration = .seconds(30)) {
            self.disconnectedAfter = disconnectedAfter
            self.failedAfter = max(failedAfter, disconnectedAfter)
        }
    }

    /// Everything an agent is made with.
    public struct Configuration: Sendable {
        /// Controlling or controlled.
        public var role: Role
        /// STUN and TURN servers. libnice takes one STUN server: of several `stun:` URLs the
        /// agent uses the first, in this order, that answers a Binding request
        /// (``IceAgent/stunServer``); and any number of TURN servers.
        public var servers: [IceServer]
        /// All candidates, or relayed only.
        public var transportPolicy: TransportPolicy
        /// Where to gather host candidates: IP literals or interface names (`lo`, `eth0`).
        /// Empty means every interface libnice finds, which excludes loopback; give
        /// `127.0.0.1` (or `lo`) to gather on loopback.
        public var localAddresses: [String]
        /// Ta, the pacing of connectivity checks (RFC 8445 section 14.2); it decides connect
        /// time (on loopback about 22 ms at libnice's default 20 ms, 6 ms at 5 ms). Default
        /// 5 ms, the minimum RFC 8445 allows; smaller values are raised to it.
        public var checkPacing: Duration
        /// The receive buffer asked for on each candidate socket (`SO_RCVBUFFORCE`, else
        /// `SO_RCVBUF`, which the kernel caps at net.core.rmem_max). Default 1 MiB: bursts
        /// of video at high rates overflow the default of about 200 KiB.
        public var receiveBufferSize: Int
        /// When silence makes the agent disconnected and failed.
        public var consent: ConsentTiming

        /// A configuration with SwiftRTC's defaults: no UPnP (it delayed gathering by 200 ms),
        /// 5 ms check pacing, trickle, consent freshness, UDP only.
        public init(
            role: Role,
            servers: [IceServer] = [],
            transportPolicy: TransportPolicy = .all,
            localAddresses: [String] = [],
            checkPacing: Duration = .milliseconds(5),
            receiveBufferSize: Int = 1 << 20,
            consent: ConsentTiming = ConsentTiming()
        ) {
            self.role = role
            self.servers = servers
            self.transportPolicy = transportPolicy
            self.localAddresses = localAddresses
            self.checkPacing = max(checkPacing, .milliseconds(5))
            self.receiveBufferSize = receiveBufferSize
            self.consent = consent
        }
    }

    /// The ICE username fragment and password of one side (`a=ice-ufrag`, `a=ice-pwd`).
    public struct Credentials: Sendable, Hashable {
        /// `ice-ufrag`.
        public var usernameFragment: String
        /// `ice-pwd`.
        public var password: String

        /// Creates credentials.
        public init(usernameFragment: String, password: String) {
            self.usernameFragment = usernameFragment
            self.password = password
        }
    }
}
