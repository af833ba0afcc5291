import FuzzTargets

@main enum ReceiverFuzzerMain { static func main() { fuzzerMain(fuzzReceiver) } }
