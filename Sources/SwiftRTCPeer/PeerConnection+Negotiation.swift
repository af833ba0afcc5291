import Foundation
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCRTP
import SwiftRTCSDP

// A completed offer/answer applied: each audio and video section's direction, codec, header extensions and recovery to its transceiver's sender and receiver.
extension PeerConnection {
    /// Applies a completed offer/answer: per section the codec, header extensions and
    /// direction to the sender and receiver; then DTLS with the negotiated role.
    func apply(
        offer: SessionDescription,
        answer: SessionDescription,
        localIsOfferer: Bool
    ) async throws(PeerConnectionError) {
        guard let transport else { throw .invalidState(operation: "negotiation", state: signaling) }
        let negotiation: Negotiation
        do { negotiation = try Negotiation(offer: offer, answer: answer) } catch {
            throw .invalidDescription(error.description)
        }
        let remote = localIsOfferer ? answer : offer
        let reducedSize = remote.media.allSatisfy { !$0.isRTP || $0.isRejected || remote.resolved($0).rtcpReducedSize }
        transport.sendCompoundFeedback(cname: reducedSize ? nil : cname)
        for media in negotiation.media where media.kind == .audio || media.kind == .video {
            guard let transceiver = transceiverList.first(where: { $0.mid == media.mid }) else { continue }
            apply(media, to: transceiver, remote: remote, localIsOfferer: localIsOfferer, transport: transport)
        }
        configureCongestion(negotiation, remote: remote, transport: transport)
        try startDtls(negotiation: negotiation, remote: remote, localIsOfferer: localIsOfferer)
        applyDataSection(offer: offer, answer: answer, localIsOfferer: localIsOfferer)
    }

    /// Applies one negotiated audio or video section to its transceiver: its direction, and
    /// the codec, header extensions and recovery (NACK, RTX) its sender and receiver use.
    func apply(
        _ media: Negotiation.NegotiatedMedia,
        to transceiver: RTPTransceiver,
        remote: SessionDescription,
        localIsOfferer: Bool,
        transport: PeerTransport
    ) {
        guard media.accepted else {
            transceiver.setCurrentDirection(.inactive)
            transceiver.sender.stop()
            return
        }
        // The answer's direction is already the intersection of both sides' wishes.
        let direction = localIsOfferer ? media.answererDirection.reversed : media.answererDirection
        transceiver.setCurrentDirection(direction)
        guard let codec = media.codecs.first(where: { ["opus", "vp8"].contains($0.encodingName ?? "") }) else {
            return
        }
        let frameCodec: EncodedFrame.Codec = codec.encodingName == "opus" ? .opus : .vp8
        let ids = Self.extensionIDs(media)
        let clockRate = codec.clockRate ?? frameCodec.clockRate
        let section = remote.media.first(where: { $0.mid == media.mid }).map(remote.resolved)
        let recovery = Self.recovery(
            codec: codec,
            media: media,
            remoteSection: section,
            localSSRC: transceiver.sender.ssrc
        )
        if direction.sends {
            start(
                transceiver.sender,
                senderParameters(
                    codec,
                    frameCodec: frameCodec,
                    clockRate: clockRate,
                    media: media,
                    extensions: ids,
                    recovery: recovery.send
                ),
                acceptedRids: Self.acceptedRids(section, extensions: ids),
                transport: transport
            )
        } else {
            transceiver.sender.stop()
        }
        if direction.receives {
            startReceiving(
                transceiver.receiver,
                codec: codec,
                frameCodec: frameCodec,
                clockRate: clockRate,
                media: media,
                section: section,
                extensions: ids,
                recovery: recovery.receive,
                transport: transport
            )
        }
    }

    /// The ids of the section's negotiated header extensions, by URI (ids over 255 left out).
    static func extensionIDs(_ media: Negotiation.NegotiatedMedia) -> RTPHeaderExtensionIDs {
        var extmap: [UInt8: String] = [:]
        for ext in media.extensions where ext.id < 256 { extmap[UInt8(ext.id)] = ext.uri }
        return RTPHeaderExtensionIDs(extmap: extmap)
    }

    /// What a sender of the negotiated `codec` sends with: its payload type and clock, the
    /// section's mid and header extensions, its recovery, and this connection's video limits.
    func senderParameters(
        _ codec: RtpCodec,
        frameCodec: EncodedFrame.Codec,
        clockRate: UInt32,
        media: Negotiation.NegotiatedMedia,
        extensions: RTPHeaderExtensionIDs,
        recovery: SendRecoveryParameters
    ) -> RTPSender.Parameters {
        RTPSender.Parameters(
            payloadType: codec.payloadType,
            codec: frameCodec,
            codecName: codec.name ?? "",
            clockRate: clockRate,
            channels: Int(codec.channels ?? 1),
            mid: media.mid,
            extensions: extensions,
            recovery: recovery,
            videoSize: configuration.videoSendSize,
            maxFrameRate: Double(configuration.maxVideoFrameRate)
        )
    }

    /// Configures `receiver` for the negotiated codec and routes its stream (and its RTX
    /// stream) to it: by SSRC when the remote section names one (the first of its FID group).
    func startReceiving(
        _ receiver: RTPReceiver,
        codec: RtpCodec,
        frameCodec: EncodedFrame.Codec,
        clockRate: UInt32,
        media: Negotiation.NegotiatedMedia,
        section: MediaDescription?,
        extensions: RTPHeaderExtensionIDs,
        recovery: RecoveryParameters,
        transport: PeerTransport
    ) {
        let fid = section?.ssrcGroups.first(where: { $0.semantics == "FID" })?.ssrcs
        let ssrc = fid?.first ?? section?.ssrcNumbers.first
        receiver.configure(
            RTPReceiver.Parameters(
                payloadType: codec.payloadType,
                codec: frameCodec,
                codecName: codec.name ?? "",
                clockRate: clockRate,
                channels: Int(codec.channels ?? 1),
                recovery: recovery,
                maximumDecodedPixels: configuration.maxDecodedPixels
            ),
            remoteSSRC: ssrc
        )
        transport.route(
            receiver,
            mid: media.mid,
            payloadType: codec.payloadType,
            ssrc: ssrc,
            midExtensionID: extensions.mid,
            rtxPayloadType: recovery.rtxPayloadType,
            rtxSSRC: fid.flatMap { $0.count > 1 ? $0[1] : nil }
        )
    }

    /// The simulcast rids the peer takes from us (`a=simulcast:recv` in its section, paused
    /// ones left out), when the rtp-stream-id header extension that tells them apart was
    /// negotiated; empty otherwise.
    static func acceptedRids(_ section: MediaDescription?, extensions: RTPHeaderExtensionIDs) -> Set<String> {
        guard extensions.rid != nil, let simulcast = section?.simulcast else { return [] }
        return Set(simulcast.recv.compactMap { $0.first(where: { !$0.paused })?.rid })
    }

    /// Starts `sender` with `parameters`, and each of its simulcast encodings the peer accepted
    /// (`acceptedRids`) beside it, with its rid, scale, share of the bitrate (by pixels' side:
    /// a quarter-size encoding gets a quarter of the full one's share) and three temporal
    /// layers; the others stop.
    /// Without accepted simulcast the first encoding goes alone, with no rid.
    func start(
        _ sender: RTPSender,
        _ parameters: RTPSender.Parameters,
        acceptedRids: Set<String>,
        transport: PeerTransport
    ) {
        let all = sender.simulcastSenders
        let sending = all.filter { $0.encoding.map { acceptedRids.contains($0.rid) } ?? false }
        let active = sending.isEmpty ? [sender] : sending
        let weights = active.map { 1 / ($0.encoding?.scaleResolutionDownBy ?? 1) }
        let total = weights.reduce(0, +)
        for encoding in all {
            guard let index = active.firstIndex(where: { $0 === encoding }) else {
                encoding.stop(includingLayers: false)
                continue
            }
            var own = parameters
            own.rid = sending.isEmpty ? nil : encoding.encoding?.rid
            own.videoScale = encoding.encoding?.scaleResolutionDownBy ?? 1
            own.bitrateShare = weights[index] / total
            // Each encoding in three temporal layers, so that an SFU can also halve or quarter
            // a receiver's frame rate (Janus's `temporal`).
            own.temporalLayers = sending.isEmpty || own.codec != .vp8 ? 1 : 3
            transport.route(encoding)
            encoding.start(own, transport: transport)
        }
    }
}
