import FuzzTargets
import FuzzerSupport

@main enum RTCPFuzzerMain { static func main() { FuzzerDriver.main(fuzzRTCP) } }
