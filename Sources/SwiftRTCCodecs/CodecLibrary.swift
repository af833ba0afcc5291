internal import COpus
internal import CVPX

/// The libopus and libvpx builds that SwiftRTC's codecs run on.
public enum CodecLibrary {
    /// libopus's version, e.g. `libopus 1.3.1`.
    public static var opusVersion: String { String(cString: opus_get_version_string()) }
    /// libvpx's version, e.g. `libvpx v1.12.0`.
    public static var vpxVersion: String { "libvpx " + String(cString: vpx_codec_version_str()) }
}
