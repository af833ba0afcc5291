// swiftrtc-fuzz <Fuzzer> [libFuzzer flags] [corpus folder...]: every fuzzer of Fuzz/ in one
// executable (one link for all of them); the bodies are in FuzzTargets, see Fuzz/README.md.
import FuzzTargets

fuzzerMain()
