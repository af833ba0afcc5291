import FuzzTargets

@main enum WHIPFuzzerMain { static func main() { fuzzerMain(fuzzWHIP) } }
