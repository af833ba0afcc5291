import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCReceive

/// Summarizes the RTP streams and RTCP packets of a capture: per SSRC the payload type,
/// packets, sequence gaps and duplicates, and for VP8 and Opus the frames a receiver would
/// assemble (through a ``FrameAssembler`` fed in capture order).
public struct CaptureAnalysis {
    /// What one SSRC carried.
    public struct Stream: Sendable, Hashable {
        /// The synchronization source (SSRC).
        public var ssrc: UInt32
        /// The RTP payload type.
        public var payloadType: UInt8
        /// The codec name mapped to the payload type, if known.
        public var codec: String?
        /// RTP packets received, duplicates included.
        public var packets = 0
        /// Sequence numbers missing between the first and the highest received.
        public var gaps = 0
        /// Packets received more than once.
        public var duplicates = 0
        /// VP8 and Opus: frames assembled (VP8) or carried (Opus).
        public var frames: Int?
        /// VP8: keyframes among them.
        public var keyframes: Int?
        /// VP8: the picture size of the last keyframe.
        public var width: Int?
        /// The picture height, when known.
        public var height: Int?
        /// Opus: the frames' total duration in milliseconds.
        public var durationMilliseconds: Double?
        /// The sizes of the frames assembled, in order (VP8 and Opus).
        public var frameSizes: [Int] = []
        /// Which of them are keyframes.
        public var keyframeFlags: [Bool] = []
    }

    /// The streams, in order of their first packet.
    public private(set) var streams: [Stream] = []
    /// RTCP packets by type name ("SR", "RR", "SDES", ...), and "malformed" for datagrams that
    /// did not parse.
    public private(set) var rtcpCounts: [String: Int] = [:]
    /// UDP datagrams that were neither RTP nor RTCP (STUN, DTLS, other traffic).
    public private(set) var otherDatagrams = 0

    struct State {
        var index: Int
        var seen: Set<Int64> = []
        var unwrapper = SequenceUnwrapper()
        var assembler: FrameAssembler?
        var opusSamples = 0
    }

    var states: [UInt32: State] = [:]
    let codecs: [UInt8: String]

    /// - Parameter codecs: payload type → codec name ("VP8", "opus", ...; case-insensitive).
    public init(codecs: [UInt8: String]) {
        self.codecs = codecs
    }

    /// Analyzes a whole capture.
    public static func analyze(
        _ datagrams: some Sequence<CaptureReader.Datagram>,
        codecs: [UInt8: String]
    ) -> CaptureAnalysis {
        var analysis = CaptureAnalysis(codecs: codecs)
        for datagram in datagrams { analysis.add(datagram.payload, time: datagram.time) }
        analysis.finish()
        return analysis
    }

    /// Takes one UDP payload captured at `time` seconds.
    public mutating func add(_ payload: [UInt8], time: Double) {
        payload.withUnsafeBytes { bytes in
            guard RTPDemultiplexer.isRTPOrRTCP(bytes) else {
                otherDatagrams += 1
                return
            }
            if RTPDemultiplexer.isRTCP(bytes) {
                do {
                    for packet in try RTCPPacket.parseCompound(bytes) { rtcpCounts[packet.name, default: 0] += 1 }
                } catch {
                    rtcpCounts["malformed", default: 0] += 1
                }
                return
            }
            guard let packet = try? RTPPacket(parsing: bytes) else {
                otherDatagrams += 1
                return
            }
            addRTP(packet, time: time)
        }
    }

    mutating func addRTP(_ packet: RTPPacket, time: Double) {
        var state = states[packet.ssrc] ?? makeState(packet)
        streams[state.index].packets += 1
        let sequence = state.unwrapper.unwrap(packet.sequenceNumber)
        if !state.seen.insert(sequence).inserted { streams[state.index].duplicates += 1 }
        if let assembler = state.assembler {
            assembler.insert(packet.bytes, arrival: time)
            while let frame = assembler.nextFrame(now: time) { count(frame, &state) }
        }
        states[packet.ssrc] = state
    }

    mutating func makeState(_ packet: RTPPacket) -> State {
        let codec = codecs[packet.payloadType]
        var stream = Stream(ssrc: packet.ssrc, payloadType: packet.payloadType, codec: codec)
        var state = State(index: streams.count)
        switch codec?.lowercased() {
        case "vp8":
            state.assembler = FrameAssembler(codec: .vp8, capacity: 2048, slotSize: 2048, maximumWait: 0.5)
            stream.frames = 0
            stream.keyframes = 0
        case "opus":
            state.assembler = FrameAssembler(codec: .opus, capacity: 1024, slotSize: 2048, maximumWait: 0.5)
            stream.frames = 0
            stream.durationMilliseconds = 0
        default: break
        }
        streams.append(stream)
        return state
    }

    mutating func count(_ frame: EncodedFrame, _ state: inout State) {
        let i = state.index
        streams[i].frames! += 1
        streams[i].frameSizes.append(frame.data.count)
        streams[i].keyframeFlags.append(frame.isKeyframe)
        switch frame.codec {
        case .vp8:
            if frame.isKeyframe {
                streams[i].keyframes! += 1
                streams[i].width = frame.width
                streams[i].height = frame.height
            }
        case .opus:
            if let toc = frame.data.withUnsafeBytes({ try? OpusTOC(parsing: $0) }) { state.opusSamples += toc.samples }
            streams[i].durationMilliseconds = Double(state.opusSamples) / 48
        }
    }

    /// Delivers what the jitter buffers still hold and computes the gaps.
    public mutating func finish() {
        for (ssrc, var state) in states {
            if let assembler = state.assembler {
                while let frame = assembler.flush() { count(frame, &state) }
            }
            if let low = state.seen.min(), let high = state.seen.max() {
                streams[state.index].gaps = Int(high - low + 1) - state.seen.count
            }
            states[ssrc] = state
        }
    }
}
