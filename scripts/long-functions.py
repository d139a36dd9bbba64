#!/usr/bin/env python3
"""Lists the C++ and CUDA functions longer than a limit in the given folders,
and the classes with more member functions than a limit.

A function's length is the number of lines from its name to its closing brace,
both included (a function whose name and brace share a line is 1 line long).
Lambdas and local classes count toward the function that holds them; each
member function defined in a class body counts on its own. The scanner reads
the sources as text: it skips comments, string and character literals (raw
strings included) and preprocessor lines, and matches braces, so it needs no
build and takes well under a second for the whole tree. It reads .cpp, .cc,
.cu, .h, .hpp and .cuh files.

    scripts/long-functions.py [--max N] [--check] [--all] PATH...

prints `path:line name lines` for each function over N lines (default 80),
longest first (with --all, every function). With --check it exits 1 when any
function is over the limit, 0 otherwise; 2 on a path that does not exist.

    scripts/long-functions.py --max-methods M [--check] PATH...

prints `path:line name methods` for each class or struct with more than M
member functions (declared or defined in its body: constructors, destructors
and operators count, `= delete` ones, friends and pointers to functions do
not; a nested class counts on its own, a class local to a function body is
not read, and a function-like macro in a class body reads as a member
function), largest first; --check exits 1 when there is one.
"""
import argparse
import os
import re
import sys

EXTENSIONS = (".cpp", ".cc", ".cu", ".h", ".hpp", ".cuh")

# Tokens: identifiers (with ~ for destructors), numbers, and punctuation. `::`
# and `->` are single tokens so that qualified names and trailing return types
# read as such.
_TOKEN = re.compile(r"[A-Za-z_~][A-Za-z_0-9]*|\d[\w.']*|::|->|\S")
_RAW_STRING = re.compile(r'R"([^()\\ ]{0,16})\(')
# What may follow a function's parameter list before its body.
_QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "constexpr", "&", "&&", "throw",
               "requires"}


def tokens(text):
    """Yields (line, token) for the code in text: comments, preprocessor lines
    and the contents of string and character literals are left out (a literal
    is one token, '"' or "'")."""
    line = 1
    i = 0
    n = len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:
            # A preprocessor line, with its continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                elif text.startswith("/*", i):
                    end = text.find("*/", i + 2)
                    end = n if end < 0 else end + 2
                    line += text.count("\n", i, end)
                    i = end
                    continue
                elif text.startswith("//", i):
                    break
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        raw = _RAW_STRING.match(text, i) if c == "R" or (c in "uUL8" and "R\"" in text[i:i + 4]) else None
        if c != "R" and raw is None and c in "uUL8":
            # An encoding prefix before R"...": u8R"x(...)x".
            j = i
            while j < n and text[j] in "uUL8":
                j += 1
            raw = _RAW_STRING.match(text, j) if j < n and text[j] == "R" else None
        if raw is not None:
            end = text.find(")" + raw.group(1) + '"', raw.end())
            end = n if end < 0 else end + len(raw.group(1)) + 2
            yield line, '"'
            line += text.count("\n", i, end)
            i = end
            continue
        if c in "\"'":
            # A literal; a ' between digits is a digit separator, read with the number.
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            yield line, c
            i = j + 1
            continue
        m = _TOKEN.match(text, i)
        yield line, m.group(0)
        i = m.end()


def _matching(toks, i):
    """The index of the bracket closing the one at toks[i] ('(' '[' or '{')."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[toks[i][1]]]
    j = i + 1
    while j < len(toks) and stack:
        t = toks[j][1]
        if t in pairs:
            stack.append(pairs[t])
        elif stack and t == stack[-1]:
            stack.pop()
        j += 1
    return j - 1


def _function_name(stmt):
    """The name of the function whose definition stmt (the tokens from the
    declaration's start to the body's '{', exclusive) begins, or None when the
    brace opens something else (a class, a namespace, an initializer)."""
    words = [t for _, t in stmt]
    if not words:
        return None
    # `template <...>` heads are not part of the declaration's shape.
    start = _template_heads_end(words)
    words = words[start:]
    stmt = stmt[start:]
    # The parameter list: the first '(' at bracket depth 0 that follows a name,
    # outside template arguments (`std::function<int()> f() {`); a '<' right
    # after `operator` (operator<, operator<<) opens none.
    depth = 0
    angles = 0
    for k, w in enumerate(words):
        if k > 1 and words[k - 2] == "operator" and words[k - 1] == "(" and w == ")":
            continue  # operator(): the name's parentheses
        if w == "(" and k > 0 and words[k - 1] == "operator" and k + 1 < len(words) and words[k + 1] == ")":
            continue
        if w == "<" and not (k > 0 and words[k - 1] == "operator") and \
                not (k > 1 and words[k - 1] == "<" and words[k - 2] == "operator"):
            angles += 1
        elif w == ">" and angles > 0:
            angles -= 1
        elif w in "([{":
            if w == "(" and depth == 0 and angles == 0 and k > 0:
                if "=" in _before_operator(words[:k]):
                    return None  # a variable (maybe a lambda) at namespace scope
                name = _name_before(words, k)
                if name is None:
                    return None
                close = _matching(stmt, k)
                if not _is_body_follow(words[close + 1:]):
                    return None
                return name
            depth += 1
        elif w in ")]}":
            depth -= 1
    return None


def _before_operator(words):
    """words up to an `operator` keyword (the tokens of an operator's name,
    such as `=` in operator== or operator=, are not part of the
    declaration's shape)."""
    return words[:words.index("operator")] if "operator" in words else words


def _without_template_heads(words):
    """words without the leading `template <...>` heads (their parameters may
    hold `class`, `=` and parentheses)."""
    return words[_template_heads_end(words):]


def _template_heads_end(words):
    """The index in words just past its leading `template <...>` heads (0
    without one)."""
    start = 0
    while start < len(words) and words[start] == "template":
        depth = 0
        j = start + 1
        while j < len(words):
            if words[j] == "<":
                depth += 1
            elif words[j] == ">":
                depth -= 1
            elif words[j] == ">>":
                depth -= 2
            if depth <= 0 and words[j] in (">", ">>"):
                break
            j += 1
        start = j + 1
    return start


def _name_before(words, k):
    """The (qualified) function name ending just before words[k] == '('."""
    j = k - 1
    # operator(), operator[], operator== and the like.
    if words[j] == ")" and j >= 2 and words[j - 1] == "(" and words[j - 2] == "operator":
        j -= 2
        parts = ["operator()"]
    else:
        op = j
        while op >= 0 and op > k - 4 and words[op] != "operator":
            op -= 1
        if op >= 0 and words[op] == "operator" and op < k - 1:
            parts = ["operator" + "".join(words[op + 1:k])]
            j = op
        elif re.match(r"^[A-Za-z_~]\w*$", words[j]):
            parts = [words[j]]
        elif words[j] == ">":
            # A template specialization's arguments: f<int>(
            depth = 0
            while j >= 0:
                if words[j] == ">":
                    depth += 1
                elif words[j] == "<":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            j -= 1
            if j < 0 or not re.match(r"^[A-Za-z_~]\w*$", words[j]):
                return None
            parts = [words[j]]
        else:
            return None
    if parts[0] in {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof"}:
        return None
    while j >= 2 and words[j - 1] == "::" and re.match(r"^[A-Za-z_]\w*$", words[j - 2]):
        parts.insert(0, words[j - 2])
        j -= 2
    return "::".join(parts)


def _is_body_follow(rest):
    """Whether what comes between a parameter list's ')' and the '{' fits a
    function definition: qualifiers, a trailing return type, a constructor's
    member initializers."""
    if not rest:
        return True
    k = 0
    while k < len(rest):
        w = rest[k]
        if w in _QUALIFIERS:
            k += 1
            if k < len(rest) and rest[k] == "(":  # noexcept(...), throw(...)
                depth = 0
                while k < len(rest):
                    depth += rest[k] == "("
                    depth -= rest[k] == ")"
                    k += 1
                    if depth == 0:
                        break
            continue
        if w in ("->", "requires"):
            return True  # the rest is the trailing return type, or the constraint
        if w == ":":
            return True  # member initializers
        if w == "[" and k + 1 < len(rest) and rest[k + 1] == "[":
            k = k + rest[k:].index("]") + 2  # [[attribute]]
            continue
        return False
    return True


def functions(text):
    """Yields (line, name, lines) for each function defined in text, in order."""
    toks = list(tokens(text))
    yield from _scan_scope(toks, 0, len(toks))


def _scan_scope(toks, begin, end):
    """Functions defined in toks[begin:end], read as namespace or class scope."""
    stmt_start = begin
    i = begin
    while i < end:
        line, t = toks[i]
        if t in (";", "}"):
            stmt_start = i + 1
            i += 1
            continue
        if t == ":" and i > stmt_start and toks[i - 1][1] in ("public", "private", "protected"):
            stmt_start = i + 1
            i += 1
            continue
        if t in ("(", "["):
            i = _matching(toks, i) + 1
            continue
        if t != "{":
            i += 1
            continue
        close = _matching(toks, i)
        stmt = toks[stmt_start:i]
        words = [w for _, w in stmt]
        name = _function_name(stmt)
        if name is not None:
            body = _body_open(toks, i, stmt, end)
            close = _matching(toks, body)
            name_line = _name_line(stmt, name)
            yield name_line, name, toks[close][0] - name_line + 1
            i = close + 1
            stmt_start = i
            continue
        if any(w in ("class", "struct", "union", "namespace") for w in words) or \
                (len(words) >= 2 and words[0] == "extern" and words[1] == '"'):
            if "enum" not in words and "=" not in words:
                yield from _scan_scope(toks, i + 1, close)
        i = close + 1
        # A namespace's or an extern block's '}' ends the statement; `struct
        # S {...} s;` and `int x{...};` end at their ';'.
        if words and ("namespace" in words[:2] or words[0] == "extern"):
            stmt_start = i


def _body_open(toks, i, stmt, end):
    """The index of the '{' that opens the body of the function whose
    declaration stmt ends at toks[i] == '{': braced member initializers
    (`: a_{x}, b_{y} {`) come before the body; a '{' right after a name or '>'
    is one of them."""
    body = i
    while toks[body - 1][1] not in (")", "}") and toks[body - 1][1] not in _QUALIFIERS \
            and toks[body - 1][1] != "]" and _in_initializers(stmt):
        after = _matching(toks, body) + 1
        while after < end and toks[after][1] != "{":
            if toks[after][1] == "(":
                after = _matching(toks, after)
            after += 1
        if after >= end:
            break
        body = after
    return body


def _in_initializers(stmt):
    """Whether stmt (up to a '{') ends inside a constructor's member
    initializer list: a ':' follows the parameter list."""
    depth = 0
    seen_params = False
    for _, w in stmt:
        if w in "([{":
            depth += 1
        elif w in ")]}":
            depth -= 1
            if depth == 0 and w == ")":
                seen_params = True
        elif w == ":" and depth == 0 and seen_params:
            return True
    return False


def _name_line(stmt, name):
    """The line of the function's name (its last part) in stmt."""
    last = name.split("::")[-1]
    for line, w in stmt:
        if w == last or (last.startswith("operator") and w == "operator"):
            return line
    return stmt[0][0]


def classes(text):
    """Yields (line, name, methods) for each class or struct with a body in
    text, nested ones included, in order: methods counts the member functions
    its body declares or defines (constructors, destructors and operators
    among them; `= delete` ones, friends and pointers to functions are not).
    Classes local to a function body are not read."""
    toks = list(tokens(text))
    yield from _scan_classes(toks, 0, len(toks))


def _scan_classes(toks, begin, end):
    """Classes defined in toks[begin:end]; what is not a class body is scanned
    for the classes inside it."""
    stmt_start = begin
    i = begin
    while i < end:
        t = toks[i][1]
        if t in (";", "}"):
            stmt_start = i + 1
        elif t in ("(", "["):
            i = _matching(toks, i)
        elif t == "{":
            stmt = toks[stmt_start:i]
            words = [w for _, w in stmt]
            head = None if _function_name(stmt) is not None else _class_head(words)
            if _function_name(stmt) is not None:
                # A function's body (its local classes are not read).
                close = _matching(toks, _body_open(toks, i, stmt, end))
            elif head is not None:
                close = _matching(toks, i)
                line = stmt[len(words) - 1 - words[::-1].index(head)][0] if head in words else toks[i][0]
                methods, nested = _class_body(toks, i + 1, close)
                yield line, head, methods
                for b, e in nested:
                    yield from _scan_classes(toks, b, e)
            else:
                close = _matching(toks, i)
                yield from _scan_classes(toks, i + 1, close)
            i = close
            stmt_start = i + 1
        i += 1


def _class_head(words):
    """The name of the class or struct whose body the '{' after words opens,
    or None (an enum, a namespace, a function, an initializer)."""
    words = _without_template_heads(words)
    for k, w in enumerate(words):
        if w in ("class", "struct") and (k == 0 or words[k - 1] not in ("enum", "friend")):
            if "=" in words[:k] or "(" in words[:k]:
                return None
            rest = _without_attributes(words[k + 1:])
            if not rest or rest[0] == ":":
                return "(anonymous)"
            if len(rest) > 1 and rest[1] not in (":", "final", "::", "<"):
                return None  # `struct sigaction action{}`: a variable's braced initializer
            return rest[0] if re.match(r"^[A-Za-z_]\w*$", rest[0]) else None
    return None


def _without_attributes(words):
    """words without `alignas(...)`, `__attribute__((...))` and `[[...]]`."""
    out = []
    k = 0
    while k < len(words):
        if words[k] in ("alignas", "__attribute__") and k + 1 < len(words) and words[k + 1] == "(":
            depth = 0
            k += 1
            while k < len(words):
                depth += (words[k] == "(") - (words[k] == ")")
                k += 1
                if depth == 0:
                    break
            continue
        if words[k] == "[" and k + 1 < len(words) and words[k + 1] == "[":
            while k < len(words) and not (words[k] == "]" and k > 0 and words[k - 1] == "]"):
                k += 1
            k += 1
            continue
        out.append(words[k])
        k += 1
    return out


def _class_body(toks, begin, end):
    """(member functions, [(begin, end)] of nested class bodies) of the class
    body toks[begin:end]."""
    methods = 0
    nested = []
    stmt_start = begin
    i = begin
    while i < end:
        t = toks[i][1]
        if t == ":" and i > stmt_start and toks[i - 1][1] in ("public", "private", "protected"):
            stmt_start = i + 1
        elif t in ("(", "["):
            i = _matching(toks, i)
        elif t == ";":
            methods += _declares_function([w for _, w in toks[stmt_start:i]])
            stmt_start = i + 1
        elif t == "{":
            close = _matching(toks, i)
            stmt = toks[stmt_start:i]
            words = [w for _, w in stmt]
            if _function_name(stmt) is not None:
                methods += "friend" not in words
                i = _matching(toks, _body_open(toks, i, stmt, end))
                stmt_start = i + 1
            elif _class_head(words) is not None or "enum" in words or "union" in words:
                if _class_head(words) is not None:
                    nested.append((stmt_start, close + 1))
                i = close  # the ';' after the nested body ends the statement
            else:
                i = close  # a braced default member initializer
        i += 1
    return methods, nested


def _declares_function(words):
    """Whether a class-scope statement (its words, without the ';') declares
    a member function: a parameter list at depth 0 after a name, before any
    '=' (`= 0`, `= default` and `= nullptr`-free declarations count, `= delete`
    does not)."""
    words = _without_template_heads(words)
    if not words or words[0] in ("using", "friend", "typedef", "static_assert") or words[-2:] == ["=", "delete"]:
        return False
    angles = 0
    for k, w in enumerate(words):
        if w == "operator":
            return True  # an operator (its name may hold '=', '<' or '(')
        if w in ("=", "{"):
            return False  # an initialized data member, or a nested class or enum
        if w == "<":
            angles += 1
        elif w == ">" and angles > 0:
            angles -= 1
        elif w == "(" and angles == 0 and k > 0:
            if k + 1 < len(words) and words[k + 1] in ("*", "&", "^"):
                return False  # a pointer to a function, or a reference to an array
            return words[k - 1] not in ("alignas", "__attribute__") and _name_before(words, k) is not None
    return False


def large_classes(paths, limit):
    """[(path, line, name, methods)] of the classes in paths with more than
    limit member functions, largest first (then by path and line)."""
    rows = []
    for path in source_files(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, name, methods in classes(text):
            if methods > limit:
                rows.append((path, line, name, methods))
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return rows


def source_files(paths):
    """The source files under paths (files are taken as they are), sorted."""
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
            continue
        for root, dirs, files in os.walk(path):
            dirs.sort()
            found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(EXTENSIONS))
    return found


def long_functions(paths, limit):
    """[(path, line, name, lines)] of the functions in paths over limit lines,
    longest first (then by path and line)."""
    rows = []
    for path in source_files(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, name, lines in functions(text):
            if lines > limit:
                rows.append((path, line, name, lines))
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description="List C++/CUDA functions longer than a limit.")
    parser.add_argument("paths", nargs="+", help="folders or files to read")
    parser.add_argument("--max", type=int, default=80, help="the most lines a function may have (default 80)")
    parser.add_argument("--check", action="store_true", help="exit 1 when any function is over the limit")
    parser.add_argument("--all", action="store_true", help="list every function, not only the long ones")
    parser.add_argument("--max-methods", type=int, default=None,
                        help="list the classes with more member functions than this instead")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not os.path.exists(path):
            print(f"long-functions.py: {path} does not exist; give a folder or file of C++ sources",
                  file=sys.stderr)
            return 2
    if args.max_methods is not None:
        rows = large_classes(args.paths, args.max_methods)
        for path, line, name, methods in rows:
            print(f"{path}:{line} {name} {methods}")
        return 1 if args.check and rows else 0
    rows = long_functions(args.paths, 0 if args.all else args.max)
    for path, line, name, lines in rows:
        print(f"{path}:{line} {name} {lines}")
    if args.check and any(r[3] > args.max for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
