import SwiftRTCCore

/// Reassembles VP8 frames from RTP packets given in sequence order (RFC 7741 §4.5): a frame
/// starts with S=1, PID=0 and ends with the marker bit. A missing sequence number drops the
/// frame in progress (it is counted, and assembly resumes at the next frame start); packets
/// with only padding are sequence fillers. The frame buffer is reused: no allocation per
/// packet once it has grown to the largest frame, which is at most ``maximumFrameSize``
/// (``RemoteInputLimits/maxEncodedVideoFrameBytes`` by default): a frame that would grow
/// beyond it is dropped (``oversizedFrames``) and its further packets are skipped.
public struct VP8Depacketizer: Sendable {
    /// What a finished frame is.
    public struct FrameInfo: Sendable, Hashable {
        /// The RTP timestamp.
        public var timestamp: UInt32
        /// Whether it is a keyframe.
        public var isKeyframe: Bool
        /// The picture width, when known.
        public var width: Int?
        /// The picture height, when known.
        public var height: Int?
    }

    /// Frames larger than this are dropped (bounds memory).
    public let maximumFrameSize: Int
    @usableFromInline var buffer: [UInt8] = []
    @usableFromInline var assembling = false
    @usableFromInline var info = FrameInfo(timestamp: 0, isKeyframe: false)
    @usableFromInline var lastSequence: UInt16?
    /// Frames dropped because packets were missing, malformed or the frame was too large.
    public private(set) var droppedFrames = 0
    /// Packets whose payload could not be read.
    public private(set) var malformedPackets = 0
    /// Frames dropped for growing beyond ``maximumFrameSize`` (also in ``droppedFrames``).
    public private(set) var oversizedFrames = 0

    /// Creates the value from its fields.
    public init(maximumFrameSize: Int = RemoteInputLimits.maxEncodedVideoFrameBytes) {
        self.maximumFrameSize = maximumFrameSize
        buffer.reserveCapacity(64 << 10)
    }

    /// The last completed frame's facts (valid after ``push(_:)`` returned true).
    public var frame: FrameInfo { info }

    /// The last completed frame's bytes.
    public func withFrameBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeBytes(body)
    }

    /// The last completed frame as an ``EncodedFrame`` (copies the bytes).
    public func makeFrame() -> EncodedFrame {
        EncodedFrame(
            codec: .vp8,
            data: buffer,
            timestamp: info.timestamp,
            isKeyframe: info.isKeyframe,
            width: info.width,
            height: info.height
        )
    }

    /// Tells the depacketizer that packets before the next one are missing for good.
    public mutating func reportGap() {
        if assembling { dropFrame() }
        lastSequence = nil
    }

    @usableFromInline
    mutating func dropFrame() {
        assembling = false
        droppedFrames += 1
        buffer.removeAll(keepingCapacity: true)
    }

    /// Takes the next packet in sequence order; returns true when it completes a frame.
    public mutating func push(_ packet: RTPPacket) -> Bool {
        if let last = lastSequence, packet.sequenceNumber != last &+ 1, assembling { dropFrame() }
        lastSequence = packet.sequenceNumber
        guard !packet.isPaddingOnly else { return false }
        let payload = packet.payload
        guard let (descriptor, length) = try? VP8PayloadDescriptor.parse(payload), length <= payload.count else {
            malformedPackets += 1
            if assembling { dropFrame() }
            return false
        }
        let data = payload.slice(length, payload.count - length)
        if descriptor.startsFrame {
            if assembling { dropFrame() }
            guard let header = VP8FrameHeader(parsing: data) else {
                malformedPackets += 1
                return false
            }
            buffer.removeAll(keepingCapacity: true)
            info = FrameInfo(
                timestamp: packet.timestamp,
                isKeyframe: header.isKeyframe,
                width: header.width,
                height: header.height
            )
            assembling = true
        } else if !assembling {
            return false
        } else if packet.timestamp != info.timestamp {
            dropFrame()
            return false
        }
        guard buffer.count + data.count <= maximumFrameSize else {
            oversizedFrames += 1
            dropFrame()
            return false
        }
        buffer.append(contentsOf: data)
        guard packet.marker else { return false }
        assembling = false
        return true
    }
}
