import FuzzTargets

@main enum SignalingFuzzerMain { static func main() { fuzzerMain(fuzzSignaling) } }
