import SwiftRTCCapture
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// The readers of the files a bot is given. The first byte chooses the format (its value
/// modulo 6), the rest is the file: 0 WAV (`WAVReader`), 1 Ogg Opus (`OggOpusReader` over
/// `OggPageReader`), 2 IVF (`IVFReader`), 3 Y4M (`Y4MReader`), 4 pcap or pcapng
/// (`CaptureReader`, and `CaptureAnalysis` as `callbot rtp inspect` runs it), 5 WebM
/// (`WebMReader`, both tracks: sizes within the limit, timestamps never backwards). Readers
/// that take a path read a scratch file holding the input. Every frame is read, to the end
/// of the file or the first error (at most 100,000).
public func fuzzFileReaders(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let format = input.u8() % 6
    let file = input.rest()
    let limit = 100_000
    switch format {
    case 0:
        guard var reader = try? WAVReader(bytes: Array(file)) else { return }
        var frames = 0
        while frames < limit, let frame = reader.readFrame() {
            guard frame.samples.count == 960 * reader.format.channels else {
                fatalError("WAV frame of \(frame.samples.count) samples")
            }
            frames += 1
        }
    case 1:
        guard var reader = try? OggOpusReader(path: ScratchFiles.write(file, to: "input.opus")) else { return }
        for _ in 0..<limit {
            guard let frame = try? reader.readFrame() else { break }
            _ = frame
        }
    case 2:
        guard var reader = try? IVFReader(path: ScratchFiles.write(file, to: "input.ivf")) else { return }
        for _ in 0..<limit {
            guard let frame = try? reader.readFrame() else { break }
            _ = frame
        }
    case 3:
        guard var reader = try? Y4MReader(path: ScratchFiles.write(file, to: "input.y4m")) else { return }
        for _ in 0..<limit {
            guard let frame = try? reader.readFrame() else { break }
            guard frame.y.count == reader.width * reader.height else {
                fatalError("Y4M frame of \(frame.y.count) luma bytes")
            }
        }
    case 5:
        let path = ScratchFiles.write(file, to: "input.webm")
        for track in [WebMReader.Track.audio, .video] {
            guard var reader = try? WebMReader(path: path, track: track) else { continue }
            var last: UInt32?
            for _ in 0..<limit {
                guard let frame = try? reader.readFrame() else { break }
                guard frame.data.count <= RemoteInputLimits.maxEncodedVideoFrameBytes else {
                    fatalError("WebM frame of \(frame.data.count) bytes")
                }
                if let last, Int32(bitPattern: frame.timestamp &- last) < 0 {
                    fatalError("WebM timestamp went back from \(last) to \(frame.timestamp)")
                }
                last = frame.timestamp
            }
        }
    default:
        guard let capture = try? CaptureReader(bytes: Array(file)) else { return }
        var datagrams: [CaptureReader.Datagram] = []
        var iterator = capture.makeIterator()
        while datagrams.count < limit, let datagram = iterator.next() { datagrams.append(datagram) }
        _ = CaptureAnalysis.analyze(datagrams, codecs: [96: "VP8", 97: "rtx", 100: "vp8", 109: "opus", 111: "opus"])
    }
}
