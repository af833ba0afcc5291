import FuzzTargets

@main enum RTPFuzzerMain { static func main() { fuzzerMain(fuzzRTP) } }
