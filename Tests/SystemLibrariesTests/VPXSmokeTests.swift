import CVPX
import Testing

/// libvpx really loads: a VP8 encoder turns a 320x240 I420 frame into a keyframe, and the
/// decoder gives back an image of that size.
@Test func vp8EncodesAKeyframeAndDecodesIt() throws {
    let version = String(cString: vpx_codec_version_str())
    #expect(version.hasPrefix("v1."))

    var config = vpx_codec_enc_cfg_t()
    #expect(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK)
    config.g_w = 320
    config.g_h = 240
    config.rc_target_bitrate = 300
    config.g_timebase = vpx_rational(num: 1, den: 90000)
    var encoder = vpx_codec_ctx_t()
    #expect(CVPX_vp8_encoder_init(&encoder, &config, 0) == VPX_CODEC_OK)
    defer { vpx_codec_destroy(&encoder) }
    #expect(CVPX_control_int(&encoder, Int32(VP8E_SET_CPUUSED.rawValue), 8) == VPX_CODEC_OK)

    let image = try #require(vpx_img_alloc(nil, VPX_IMG_FMT_I420, 320, 240, 16))
    defer { vpx_img_free(image) }
    let strides = [image.pointee.stride.0, image.pointee.stride.1, image.pointee.stride.2].map(Int.init)
    let planes = [image.pointee.planes.0, image.pointee.planes.1, image.pointee.planes.2]
    for plane in 0..<3 {
        let base = try #require(planes[plane])
        for row in 0..<(plane == 0 ? 240 : 120) {
            (base + row * strides[plane]).update(
                repeating: UInt8(truncatingIfNeeded: row * 3 + plane * 40),
                count: strides[plane]
            )
        }
    }
    #expect(vpx_codec_encode(&encoder, image, 0, 3000, 0, UInt(VPX_DL_REALTIME)) == VPX_CODEC_OK)

    var frame: [UInt8] = []
    var isKey = false
    var iterator: vpx_codec_iter_t?
    while let packet = vpx_codec_get_cx_data(&encoder, &iterator) {
        guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
        let data = packet.pointee.data.frame
        frame += UnsafeRawBufferPointer(start: data.buf, count: data.sz)
        isKey = data.flags & UInt32(VPX_FRAME_IS_KEY) != 0
    }
    #expect(frame.count > 100)
    #expect(isKey)
    // RFC 6386 §9.1: a keyframe carries the start code 9d 01 2a and the frame size.
    #expect(Array(frame[3..<6]) == [0x9D, 0x01, 0x2A])
    #expect(Int(frame[6]) | Int(frame[7] & 0x3F) << 8 == 320)

    var decoder = vpx_codec_ctx_t()
    #expect(CVPX_vp8_decoder_init(&decoder, nil, 0) == VPX_CODEC_OK)
    defer { vpx_codec_destroy(&decoder) }
    #expect(vpx_codec_decode(&decoder, frame, UInt32(frame.count), nil, 0) == VPX_CODEC_OK)
    var decodeIterator: vpx_codec_iter_t?
    let decoded = try #require(vpx_codec_get_frame(&decoder, &decodeIterator))
    #expect(decoded.pointee.d_w == 320)
    #expect(decoded.pointee.d_h == 240)
}
