import Foundation

/// The Python that runs the interop peers (`Interop/*.py`, `Fixtures/sdp/*_sdp.py`): the
/// project's own virtual environment, `.venv/` at the package root, which
/// `./Scripts/bootstrap.sh --tests` makes with Debian's `/usr/bin/python3` and fills with aiortc
/// 1.16 and marionette-driver (Debian's Python refuses `pip install` into itself, PEP 668).
/// Never the `python3` first on PATH: that one may lack them, or be another Python altogether.
public enum ProjectPython {
    /// The package root, from this file's path (`Tests/TestScheduling/ProjectPython.swift`).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `<package root>/.venv/bin/python`, the interpreter to run every Python script of the tests with.
    public static let path = packageRoot.appendingPathComponent(".venv/bin/python").path

    /// What to do when it is missing or lacks a package.
    public static let setUp = "run ./Scripts/bootstrap.sh --tests"

    /// Whether the virtual environment's interpreter is there at all.
    public static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The failure message for a missing interpreter or package (`what`, e.g. "aiortc").
    public static func missing(_ what: String) -> String {
        "\(what) is missing from the project's Python (\(path)); \(setUp)"
    }
}
