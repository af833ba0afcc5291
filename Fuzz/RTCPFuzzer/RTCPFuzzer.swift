import FuzzTargets

@main enum RTCPFuzzerMain { static func main() { fuzzerMain(fuzzRTCP) } }
