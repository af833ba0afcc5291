import FuzzTargets
import FuzzerSupport

@main enum SDPFuzzerMain { static func main() { FuzzerDriver.main(fuzzSDP) } }
