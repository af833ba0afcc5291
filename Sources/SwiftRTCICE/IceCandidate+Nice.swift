import CNice
import SwiftRTCSDP

extension IceCandidate {
    /// Reads a libnice candidate. For non-host candidates the base address becomes the
    /// related address (`raddr`/`rport`), as libnice itself writes them in SDP.
    init(nice candidate: UnsafePointer<NiceCandidate>) {
        let value = candidate.pointee
        let foundation = withUnsafeBytes(of: value.foundation) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let type: CandidateType =
            switch value.type {
            case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: .srflx
            case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: .prflx
            case NICE_CANDIDATE_TYPE_RELAYED: .relay
            default: .host
            }
        let tcpType: TCPType? =
            switch value.transport {
            case NICE_CANDIDATE_TRANSPORT_TCP_ACTIVE: .active
            case NICE_CANDIDATE_TRANSPORT_TCP_PASSIVE: .passive
            case NICE_CANDIDATE_TRANSPORT_TCP_SO: .so
            default: nil
            }
        var related: (String, UInt16)?
        if type != .host {
            withUnsafePointer(to: candidate.pointee.base_addr) { base in
                if nice_address_is_valid(base) != 0 { related = NiceAddressText.hostAndPort(base) }
            }
        }
        let (address, port) = withUnsafePointer(to: candidate.pointee.addr) { NiceAddressText.hostAndPort($0) }
        self.init(
            foundation: foundation,
            component: UInt16(truncatingIfNeeded: value.component_id),
            transport: tcpType == nil ? "udp" : "tcp",
            priority: value.priority,
            address: address,
            port: port,
            type: type,
            relatedAddress: related?.0,
            relatedPort: related?.1,
            tcpType: tcpType
        )
    }

    /// A new libnice candidate for this one in `streamID` (free it with `nice_candidate_free`),
    /// or `nil` if ``address`` is not an IP literal (resolve mDNS names first) or the transport
    /// is neither UDP nor TCP.
    func makeNiceCandidate(streamID: UInt32) -> UnsafeMutablePointer<NiceCandidate>? {
        guard let transport = transportProtocol else { return nil }
        let niceType: NiceCandidateType =
            switch type {
            case .host: NICE_CANDIDATE_TYPE_HOST
            case .srflx: NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE
            case .prflx: NICE_CANDIDATE_TYPE_PEER_REFLEXIVE
            case .relay: NICE_CANDIDATE_TYPE_RELAYED
            }
        guard let candidate = nice_candidate_new(niceType) else { return nil }
        guard nice_address_set_from_string(&candidate.pointee.addr, address) != 0 else {
            nice_candidate_free(candidate)
            return nil
        }
        nice_address_set_port(&candidate.pointee.addr, UInt32(port))
        if let relatedAddress, nice_address_set_from_string(&candidate.pointee.base_addr, relatedAddress) != 0 {
            nice_address_set_port(&candidate.pointee.base_addr, UInt32(relatedPort ?? 0))
        }
        candidate.pointee.transport =
            switch (transport, tcpType) {
            case (.udp, _): NICE_CANDIDATE_TRANSPORT_UDP
            case (.tcp, .passive?): NICE_CANDIDATE_TRANSPORT_TCP_PASSIVE
            case (.tcp, .so?): NICE_CANDIDATE_TRANSPORT_TCP_SO
            case (.tcp, _): NICE_CANDIDATE_TRANSPORT_TCP_ACTIVE
            }
        candidate.pointee.priority = priority
        candidate.pointee.stream_id = streamID
        candidate.pointee.component_id = UInt32(component)
        withUnsafeMutableBytes(of: &candidate.pointee.foundation) { field in
            let bytes = foundation.utf8.prefix(field.count - 1)
            field.initializeMemory(as: UInt8.self, repeating: 0)
            field.copyBytes(from: bytes)
        }
        return candidate
    }
}

/// Text forms of `NiceAddress`.
enum NiceAddressText {
    /// The IP literal (IPv6 without brackets) and port.
    static func hostAndPort(_ address: UnsafePointer<NiceAddress>) -> (String, UInt16) {
        var buffer = [CChar](repeating: 0, count: 64)  // >= NICE_ADDRESS_STRING_LEN (INET6_ADDRSTRLEN)
        nice_address_to_string(address, &buffer)
        let host = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (host, UInt16(truncatingIfNeeded: nice_address_get_port(address)))
    }
}
