#!/usr/bin/env python3
"""Finds function-local statics of class type in the injection library's sources.

The tool writes its report from an exit handler registered when it starts, and
glibc runs exit handlers and static destructors in one list, last registered
first: a function-local static first made after the tool started (at a range's
end, say) is destroyed before that handler runs, and the handler then reads a
destroyed object. So a function-local static of class type is made with `new`
and bound to a reference (never destroyed):

    static const std::vector<Kind>& kinds = *new const std::vector<Kind>{...};

This check lists every function-local `static` of a `std::` class type, or of
the project's own Status and StatusOr (they hold a message string), that is
not a reference (atomics, mutexes and once_flags excepted, and one whose line
follows a comment saying `trivially destructible`: nothing is freed at their
destruction). Namespace-scope objects are made when the library loads,
before the handler is registered, and are destroyed after it.

  scripts/check-static-lifetimes.py [PATH...]     (default: src)

Exit 1 when one is found (each printed as file:line: text), 0 otherwise.
"""
import os
import re
import sys

# `static [const] std::Type<...> name` at the start of a line inside a
# function (indented), not a reference, not constexpr or thread_local.
PATTERN = re.compile(
    r"^\s+static\s+(const\s+)?(std::[A-Za-z_]+|Status|StatusOr)\b[^&;=({]*?\s[A-Za-z_][A-Za-z0-9_]*\s*(=|\{|;)")
HARMLESS = {"std::atomic", "std::mutex", "std::once_flag", "std::atomic_flag"}
SOURCES = (".cpp", ".h", ".cu", ".cuh")


def findings(paths):
    for root in paths:
        files = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, names in os.walk(root) for f in names if f.endswith(SOURCES)]
        for path in sorted(files):
            with open(path, encoding="utf-8") as f:
                previous = ""
                for number, line in enumerate(f, 1):
                    m = PATTERN.match(line)
                    if (m and m.group(2) not in HARMLESS and "constexpr" not in line and "thread_local" not in line
                            and not (previous.lstrip().startswith("//") and "trivially destructible" in previous)):
                        yield f"{path}:{number}: {line.strip()}"
                    previous = line


def main(argv):
    found = list(findings(argv[1:] or ["src"]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} function-local static(s) of class type would be destroyed before the tool's exit "
              "handler: bind each to a reference to an object made with new (see this script's docstring)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
