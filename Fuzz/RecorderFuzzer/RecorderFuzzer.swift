import FuzzTargets

@main enum RecorderFuzzerMain { static func main() { fuzzerMain(fuzzRecorders) } }
