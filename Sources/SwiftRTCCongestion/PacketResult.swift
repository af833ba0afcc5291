/// What transport-wide feedback said about one sent packet.
public struct PacketResult: Sendable, Hashable {
    /// The unwrapped transport-wide sequence number.
    public var sequenceNumber: Int64
    /// When it was sent, microseconds on the sender's monotonic clock.
    public var sendTime: Int64
    /// Its size in bytes (RTP header and payload).
    public var size: Int
    /// When it arrived, microseconds on the receiver's clock (only differences mean
    /// anything); nil when the feedback reports it lost.
    public var arrivalTime: Int64?

    /// Creates a result.
    public init(sequenceNumber: Int64, sendTime: Int64, size: Int, arrivalTime: Int64?) {
        self.sequenceNumber = sequenceNumber
        self.sendTime = sendTime
        self.size = size
        self.arrivalTime = arrivalTime
    }
}
