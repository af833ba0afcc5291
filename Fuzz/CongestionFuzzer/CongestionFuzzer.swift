import FuzzTargets

@main enum CongestionFuzzerMain { static func main() { fuzzerMain(fuzzCongestion) } }
