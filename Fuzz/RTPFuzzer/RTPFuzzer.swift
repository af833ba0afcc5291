import FuzzTargets
import FuzzerSupport

@main enum RTPFuzzerMain { static func main() { FuzzerDriver.main(fuzzRTP) } }
