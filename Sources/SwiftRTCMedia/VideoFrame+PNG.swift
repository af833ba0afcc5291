import CAVFormat
import SwiftRTCCodecs

extension VideoFrame {
    /// The picture as the bytes of a PNG file: converted from I420 (video range, BT.601, as
    /// VP8 carries it) to 8-bit RGB, then compressed by FFmpeg's libavcodec PNG encoder.
    public func pngData() throws(MediaFileError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw .muxer(operation: "avcodec_find_encoder(PNG)", code: 0, message: "no PNG encoder in this libavcodec")
        }
        var context = avcodec_alloc_context3(codec)
        var picture = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_frame_free(&picture)
            av_packet_free(&packet)
        }
        guard let context, let picture, let packet else { throw .unusable(format: "PNG", reason: "out of memory") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 1)
        try MediaFileError.checkFFmpeg(avcodec_open2(context, codec, nil), "avcodec_open2(PNG)")
        picture.pointee.format = AV_PIX_FMT_RGB24.rawValue
        picture.pointee.width = Int32(width)
        picture.pointee.height = Int32(height)
        try MediaFileError.checkFFmpeg(av_frame_get_buffer(picture, 0), "av_frame_get_buffer")
        guard let rgb = picture.pointee.data.0 else { throw .unusable(format: "PNG", reason: "no picture buffer") }
        let stride = Int(picture.pointee.linesize.0)
        for row in 0..<height {
            let out = rgb + row * stride
            for column in 0..<width {
                let (r, g, b) = Self.rgb(
                    y: y[row * yStride + column],
                    u: u[(row / 2) * uvStride + column / 2],
                    v: v[(row / 2) * uvStride + column / 2]
                )
                out[3 * column] = r
                out[3 * column + 1] = g
                out[3 * column + 2] = b
            }
        }
        try MediaFileError.checkFFmpeg(avcodec_send_frame(context, picture), "avcodec_send_frame(PNG)")
        try MediaFileError.checkFFmpeg(avcodec_receive_packet(context, packet), "avcodec_receive_packet(PNG)")
        return Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }

    /// Writes the picture to `path` as a PNG file (``pngData()``), replacing what was there.
    public func writePNG(to path: String) throws(MediaFileError) {
        let file = try MediaOutputFile(path: path)
        try file.append(try pngData())
        try file.close()
    }

    /// One pixel from video-range BT.601 YCbCr to full-range RGB, in integers.
    static func rgb(y: UInt8, u: UInt8, v: UInt8) -> (UInt8, UInt8, UInt8) {
        let c = 298 * (Int(y) - 16), d = Int(u) - 128, e = Int(v) - 128
        func clamp(_ value: Int) -> UInt8 { UInt8(max(0, min(255, (value + 128) >> 8))) }
        return (clamp(c + 409 * e), clamp(c - 100 * d - 208 * e), clamp(c + 516 * d))
    }
}
