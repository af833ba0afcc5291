#!/usr/bin/env bash
# Fails when Package.swift and the sources disagree on how the modules depend on each other:
# every module a Swift target imports is declared among its dependencies, and every module it
# declares is imported by one of its files. SwiftPM builds an undeclared import whenever another
# dependency happens to bring the module along, so the graph drifts silently; an unused
# declaration makes a module look needed where it is not. Exceptions, each for a reason: a
# declared executable (tests and benchmarks run it as a process: declared so that it is built),
# and C targets (their dependencies are headers, not imports). Run from anywhere:
# ./Scripts/check-module-edges.sh
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(swift package dump-package)
python3 - "$manifest" <<'PYTHON'
import json, pathlib, re, sys

targets = {t["name"]: t for t in json.loads(sys.argv[1])["targets"]}
import_line = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+|internal\s+)?import\s+"
    r"(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)",
    re.M,
)
problems = []
for name, target in sorted(targets.items()):
    root = pathlib.Path(target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name)
    files = list(root.rglob("*.swift"))
    if not files:
        continue  # a C target
    declared = {
        dependency[kind][0]
        for dependency in target.get("dependencies", [])
        for kind in ("byName", "target")
        if kind in dependency and dependency[kind][0] in targets
    }
    imported = {m.group(1) for f in files for m in import_line.finditer(f.read_text())} & targets.keys()
    problems += [f"{name} imports {m} without declaring it" for m in sorted(imported - declared)]
    problems += [
        f"{name} declares {m} and imports nothing of it"
        for m in sorted(declared - imported)
        if targets[m]["type"] != "executable"
    ]
for problem in problems:
    print(f"check-module-edges: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-module-edges: {len(targets)} targets, every import declared and every declaration imported")
PYTHON
