import Foundation
import FuzzTargets
import TestScheduling
import Testing

/// Every seed (`Fuzz/<Name>/corpus/`) and every finding (`Fuzz/<Name>/regressions/`) of every
/// fuzzer, replayed through its body in the ordinary debug build: an input that traps ends the
/// test process, which fails the run. (`Scripts/fuzz.sh` runs the same bodies under libFuzzer.)
@Suite struct FuzzReplayTests {
    /// The repository's `Fuzz/` folder.
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `Fuzz/<target>/<folder>/`, sorted, without hidden ones (`.gitkeep`).
    static func inputs(_ target: String, _ folder: String) -> [URL] {
        let url = fuzzFolder.appendingPathComponent(target).appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { url.appendingPathComponent($0) }
    }

    @Test("every fuzzer has a seed corpus and a regressions folder", arguments: fuzzTargets.map(\.name))
    func layout(_ target: String) {
        #expect(!Self.inputs(target, "corpus").isEmpty, "Fuzz/\(target)/corpus/ is empty")
        let regressions = Self.fuzzFolder.appendingPathComponent(target).appendingPathComponent("regressions").path
        #expect(FileManager.default.fileExists(atPath: regressions), "Fuzz/\(target)/regressions/ is missing")
    }

    @Test("every fuzzer folder is a target")
    func everyFolderIsListed() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.fuzzFolder.path).filter {
            $0.hasSuffix("Fuzzer")
        }
        #expect(Set(folders) == Set(fuzzTargets.map(\.name)))
    }

    @Test("seeds and findings replay without a trap", arguments: fuzzTargets.map(\.name))
    func replay(_ target: String) async throws {
        let files = Self.inputs(target, "corpus") + Self.inputs(target, "regressions")
        // The bodies block their thread until their async work ends (runBlocking): never on
        // the cooperative pool.
        let replayed = try await offThePool {
            guard let body = fuzzTargets.first(where: { $0.name == target })?.body else { return -1 }
            for file in files {
                let bytes = try [UInt8](Data(contentsOf: file))
                bytes.withUnsafeBytes { body($0) }
            }
            return files.count
        }
        #expect(replayed == files.count)
    }
}
