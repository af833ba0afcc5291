// Bilinear scaling of I420 pictures, for when a source's size differs from what the encoder
// was asked to send (the "VS (input) ... | (sent) ..." of the stats).

extension VideoFrame {
    /// This picture scaled to `width` x `height` (bilinear, pixel centres aligned), with tight
    /// strides and the same timestamp.
    public func scaled(width: Int, height: Int) -> VideoFrame {
        var out = VideoFrame(width: width, height: height, timestamp: timestamp)
        scale(into: &out)
        return out
    }

    /// Scales this picture into `destination`'s size, writing its existing planes (no
    /// allocation when `destination`'s storage is uniquely referenced). Copies the timestamp.
    public func scale(into destination: inout VideoFrame) {
        destination.timestamp = timestamp
        let luma = Plane(width: destination.width, height: destination.height, stride: destination.yStride)
        let chroma = Plane(
            width: destination.chromaWidth,
            height: destination.chromaHeight,
            stride: destination.uvStride
        )
        Self.scale(y, Plane(width: width, height: height, stride: yStride), into: &destination.y, luma)
        let source = Plane(width: chromaWidth, height: chromaHeight, stride: uvStride)
        Self.scale(u, source, into: &destination.u, chroma)
        Self.scale(v, source, into: &destination.v, chroma)
    }

    /// A plane's geometry.
    struct Plane {
        var width: Int
        var height: Int
        var stride: Int
    }

    static func scale(_ source: [UInt8], _ from: Plane, into destination: inout [UInt8], _ to: Plane) {
        source.withUnsafeBufferPointer { src in
            destination.withUnsafeMutableBufferPointer { dst in
                scalePlane(
                    src,
                    width: from.width,
                    height: from.height,
                    stride: from.stride,
                    into: dst,
                    width: to.width,
                    height: to.height,
                    stride: to.stride
                )
            }
        }
    }

    /// Bilinear resampling of one 8-bit plane in 16.16 fixed point. Planes too small for
    /// their stated size are left alone (a VideoFrame built by hand could be inconsistent).
    static func scalePlane(
        _ src: UnsafeBufferPointer<UInt8>,
        width sw: Int,
        height sh: Int,
        stride ss: Int,
        into dst: UnsafeMutableBufferPointer<UInt8>,
        width dw: Int,
        height dh: Int,
        stride ds: Int
    ) {
        guard sw > 0, sh > 0, dw > 0, dh > 0, ss >= sw, ds >= dw,
            src.count >= ss * (sh - 1) + sw, dst.count >= ds * (dh - 1) + dw
        else { return }
        if sw == dw && sh == dh {
            for row in 0..<dh {
                for col in 0..<dw { dst[row * ds + col] = src[row * ss + col] }
            }
            return
        }
        // Source coordinate of destination pixel centre d: (d + 0.5) * s / d - 0.5, in 16.16.
        let xStep = (sw << 16) / dw, yStep = (sh << 16) / dh
        let xStart = xStep / 2 - (1 << 15), yStart = yStep / 2 - (1 << 15)
        let maxX = (sw - 1) << 16, maxY = (sh - 1) << 16
        for row in 0..<dh {
            let fy = min(max(yStart + row * yStep, 0), maxY)
            let y0 = fy >> 16, y1 = min(y0 + 1, sh - 1), wy = fy & 0xFFFF
            let top = y0 * ss, bottom = y1 * ss
            var fx = xStart
            for col in 0..<dw {
                let cx = min(max(fx, 0), maxX)
                let x0 = cx >> 16, x1 = min(x0 + 1, sw - 1), wx = cx & 0xFFFF
                let a = Int(src[top + x0]), b = Int(src[top + x1])
                let c = Int(src[bottom + x0]), d = Int(src[bottom + x1])
                let upper = a * 65536 + (b - a) * wx
                let lower = c * 65536 + (d - c) * wx
                let value = (upper * 65536 + (lower - upper) * wy + (1 << 31)) >> 32
                dst[row * ds + col] = UInt8(truncatingIfNeeded: value)
                fx += xStep
            }
        }
    }
}
