import FuzzTargets

@main enum STUNFuzzerMain { static func main() { fuzzerMain(fuzzSTUN) } }
