import FuzzTargets
import FuzzerSupport

@main enum VP8DepacketizerFuzzerMain { static func main() { FuzzerDriver.main(fuzzVP8Depacketizer) } }
