import FuzzTargets

@main enum NegotiationFuzzerMain { static func main() { fuzzerMain(fuzzNegotiation) } }
