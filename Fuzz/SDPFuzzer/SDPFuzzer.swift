import FuzzTargets

@main enum SDPFuzzerMain { static func main() { fuzzerMain(fuzzSDP) } }
