import FuzzTargets

@main enum VP8DepacketizerFuzzerMain { static func main() { fuzzerMain(fuzzVP8Depacketizer) } }
