"""Sizes of the Swift sources: files over 400 lines and functions over 60 (Scripts/check-sizes.sh).

A function is a `func`, `init`, `deinit` or `subscript` declaration with a body; its size is the
lines from its first line to its closing brace. Comments and string literals are blanked before
braces are matched, so that a brace in them counts for nothing.
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

DECLARATION = re.compile(
    r"^[ \t]*(?:(?:@\w+(?:\([^)\n]*\))?|public|private(?:\(set\))?|fileprivate|internal|package|static|class"
    r"|override|mutating|nonmutating|final|convenience|required|nonisolated|dynamic|borrowing|consuming)\s+)*"
    r"(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]",
    re.M,
)


def blank(text):
    """The text with comments and string literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    spaces = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        else:
            m = re.compile(r'(#*)("""|")').match(text, i)
            if not m:
                out.append(text[i])
                i += 1
                continue
            hashes, quote = m.group(1), m.group(2)
            close = quote + hashes
            j = m.end()
            while j < n:
                if text[j] == "\\" and not hashes:
                    j += 2
                    continue
                if text.startswith(close, j):
                    j += len(close)
                    break
                if quote == '"' and text[j] == "\n":
                    break
                j += 1
        out.append(spaces(text[i:j]))
        i = j
    return "".join(out)


def functions(text):
    """(first line, lines, name) of each function body in `text`."""
    code = blank(text)
    found = []
    for match in DECLARATION.finditer(code):
        k, depth = match.end() - 1, 0
        while k < len(code):
            c = code[k]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "{" and depth == 0:
                break
            elif c == "\n" and depth == 0 and code[k + 1 : k + 2] in ("\n", "}"):
                k = -1  # a requirement without a body (a protocol's)
                break
            k += 1
        if k < 0 or k >= len(code):
            continue
        level, end = 0, k
        while end < len(code):
            if code[end] == "{":
                level += 1
            elif code[end] == "}":
                level -= 1
                if level == 0:
                    break
            end += 1
        first = code.count("\n", 0, match.start()) + 1
        last = code.count("\n", 0, end) + 1
        found.append((first, last - first + 1, match.group(1).split()[-1]))
    return found


def main(root):
    """Every file over the file limit and function over the function limit under `root`, as
    (key, size, message); the key is `path` or `path:function`."""
    problems = []
    for path in sorted(pathlib.Path(root).rglob("*.swift")):
        text = path.read_text()
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if lines > MAX_FILE_LINES:
            problems.append((f"{path}", lines, f"{path}: {lines} lines (at most {MAX_FILE_LINES})"))
        for first, size, name in functions(text):
            if size > MAX_FUNCTION_LINES:
                message = f"{path}:{first}: {name}: {size} lines (at most {MAX_FUNCTION_LINES})"
                problems.append((f"{path}:{name}", size, message))
    return problems


def allowed(path):
    """The named exceptions: `key size` per line (# comments), each allowed up to its size."""
    entries = {}
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            key, size = line.rsplit(" ", 1)
            entries[key] = int(size)
    return entries


if __name__ == "__main__":
    exceptions = allowed(sys.argv[2]) if len(sys.argv) > 2 else {}
    failures, seen = [], set()
    for key, size, message in main(sys.argv[1] if len(sys.argv) > 1 else "Sources"):
        seen.add(key)
        if key not in exceptions:
            failures.append(message)
        elif size > exceptions[key]:
            failures.append(f"{message}: grew past its exception ({exceptions[key]})")
    failures += [f"{key}: within the limits now: remove it from the exceptions" for key in exceptions if key not in seen]
    for failure in failures:
        print(failure)
    sys.exit(1 if failures else 0)
