#!/usr/bin/env bash
# Fails when a file of the repository refers to something outside it, so that a clone alone
# in an empty folder builds and passes its tests. The rule, over every file git tracks (and
# new files not yet added, minus ignored ones), skipping binary files and this script (which
# has to name what it looks for):
#
#  1. `../shared` anywhere is an error: it is the folder our machines keep beside the
#     checkout, and it must never be needed, whatever folder a path is meant to be taken from
#     (a README command run from the root, a path built in Swift from `#filePath`).
#  2. A relative path that starts with `../` (after a space, quote, bracket, `=`, `:` ...,
#     not after another path component) is resolved from the folder of the file it is in;
#     if it climbs above the repository root it is an error. `../README.md` in `Fuzz/README.md`
#     is fine; `../x` in `README.md`, or `../../x` in `Fixtures/README.md`, is not.
#
# Paths that start elsewhere (`$(dirname "$0")/..`, `#filePath` with
# `deletingLastPathComponent()`) are not resolved: they are anchored to something this check
# cannot know. Run from anywhere: ./Scripts/check-self-contained.sh
set -euo pipefail
cd "$(dirname "$0")/.."

self="Scripts/check-self-contained.sh"
files=()
while IFS= read -r -d '' file; do
    [[ "$file" == "$self" || ! -f "$file" ]] || files+=("$file")
done < <(git ls-files -z --cached --others --exclude-standard)

status=0

# Rule 1.
if hits=$(printf '%s\0' "${files[@]}" | xargs -0 grep -I -n -F -e '../shared' --); then
    echo "error: these lines refer to the shared folder beside the repository:" >&2
    echo "$hits" >&2
    status=1
fi

# Rule 2: file:line:path for every relative path starting with ../, then resolve each.
matches=$(printf '%s\0' "${files[@]}" |
    xargs -0 grep -I -n -o -E -e '(^|[^A-Za-z0-9_.~/$)}-])(\.\./)+[A-Za-z0-9_.@+/-]*' -- || true)
if [[ -n "$matches" ]]; then
    if escapes=$(awk '
        {
            # file:line:<one leading char or none>../path
            file = $0; sub(/:.*/, "", file)
            rest = substr($0, length(file) + 2)
            line = rest; sub(/:.*/, "", line)
            path = substr(rest, length(line) + 2)
            sub(/^[^.]/, "", path)
            # The folders of the file, then the path components, resolved.
            depth = split(file, parts, "/") - 1
            n = split(path, steps, "/")
            for (i = 1; i <= n; i++) {
                if (steps[i] == "..") { depth--; if (depth < 0) break }
                else if (steps[i] != "." && steps[i] != "") depth++
            }
            if (depth < 0) print file ":" line ": " path
        }' <<<"$matches") && [[ -n "$escapes" ]]; then
        echo "error: these relative paths climb above the repository root:" >&2
        echo "$escapes" >&2
        status=1
    fi
fi

if [[ $status -eq 0 ]]; then
    echo "check-self-contained: ${#files[@]} files, nothing refers outside the repository"
fi
exit $status
