import FuzzTargets

@main enum FileReaderFuzzerMain { static func main() { fuzzerMain(fuzzFileReaders) } }
