import HummingbirdCore
import Logging
import NIOCore
import SwiftRTCSignaling

/// A server's child channel behind its ``ServerDoor``: the door admits the connection (or
/// closes it) and its handler goes first in the pipeline, before TLS and HTTP.
struct DoorChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let door: ServerDoor
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = ClientAddress.key(forIP: channel.remoteAddress?.ipAddress)
        guard door.admit(address) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        DoorMetrics.connections.record(door.openConnections)
        do {
            try channel.pipeline.syncOperations.addHandler(DoorHandler(door: door, address: address), position: .first)
        } catch {
            door.release(address)
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The door's watch over one connection: its place is given back when it closes; it is
/// closed when its first request is late or when it falls silent (``ServerDoor/Configuration``).
/// Runs on the connection's event loop; passes everything through.
final class DoorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let door: ServerDoor
    private let address: String
    private var accepted = NIODeadline.now()
    private var lastRead = NIODeadline.now()
    private var requestSeen = false
    private var released = false
    private var timer: Scheduled<Void>?

    init(door: ServerDoor, address: String) {
        self.door = door
        self.address = address
    }

    func handlerAdded(context: ChannelHandlerContext) {
        accepted = .now()
        lastRead = accepted
        schedule(context, at: accepted + TimeAmount(door.configuration.requestTimeout))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        release()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead = .now()
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ServerDoor.RequestStarted { requestSeen = true }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        release()
        context.fireChannelInactive()
    }

    private func release() {
        guard !released else { return }
        released = true
        door.release(address)
        DoorMetrics.connections.record(door.openConnections)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.check(context)
        }
    }

    /// Closes the connection if its first request is late or it has been silent too long;
    /// otherwise looks again at the next deadline.
    private func check(_ context: ChannelHandlerContext) {
        timer = nil
        guard !released, context.channel.isActive else { return }
        let now = NIODeadline.now()
        let requestDeadline = accepted + TimeAmount(door.configuration.requestTimeout)
        let idleDeadline = lastRead + TimeAmount(door.configuration.idleTimeout)
        if !requestSeen, now >= requestDeadline {
            door.closed(address, .withoutRequest)
            context.close(promise: nil)
        } else if now >= idleDeadline {
            door.closed(address, .idle)
            context.close(promise: nil)
        } else {
            schedule(context, at: requestSeen ? idleDeadline : min(requestDeadline, idleDeadline))
        }
    }
}
