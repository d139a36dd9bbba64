"""CPU test of scripts/long-functions.py, the list of functions over a line
limit and of classes over a number of member functions, on a fixture of known
function lengths (tests/scripts/data/long_functions_fixture.cpp: comments,
strings, raw strings and macros holding braces, member initializers, a
trailing return type, a lambda), one of known member functions
(tests/scripts/data/class_methods_fixture.h: deleted ones, friends, nested
classes, data members of function type, operators, a requires clause, class
templates with defaults) and a temporary folder; the listings,
their order and the exit status of --check. No build output or GPU (CTest
label unit):

    python3 tests/scripts/test_long_functions.py
"""
import contextlib, importlib.util, io, os, shutil, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("long_functions",
                                              os.path.join(HERE, "..", "..", "scripts", "long-functions.py"))
long_functions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(long_functions)

FIXTURE = os.path.join(HERE, "data", "long_functions_fixture.cpp")
CLASS_FIXTURE = os.path.join(HERE, "data", "class_methods_fixture.h")

# (line of the name, name, lines) of every function in the fixture, in order.
EXPECTED = [
    (16, "three_lines", 3),
    (27, "Widget", 4),
    (31, "inline_member", 1),
    (32, "~Widget", 2),
    (41, "trailing", 7),
    (51, "outer::qualified_nine", 9),
    (61, "returns_a_function", 3),
    (65, "operator<", 3),
    (69, "after_nested_templates", 3),
]


def run_main(argv):
    """(exit status, stdout, stderr) of main(argv)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = long_functions.main(argv)
    return status, out.getvalue(), err.getvalue()


def test_every_function_of_the_fixture_with_its_length():
    with open(FIXTURE) as f:
        assert list(long_functions.functions(f.read())) == EXPECTED


def test_lists_those_over_the_limit_longest_first():
    status, out, _ = run_main(["--max", "3", FIXTURE])
    assert status == 0
    assert out.splitlines() == [f"{FIXTURE}:51 outer::qualified_nine 9", f"{FIXTURE}:41 trailing 7",
                                f"{FIXTURE}:27 Widget 4"]


def test_check_fails_only_over_the_limit():
    assert run_main(["--check", "--max", "8", FIXTURE])[0] == 1
    status, out, _ = run_main(["--check", "--max", "9", FIXTURE])
    assert (status, out) == (0, "")
    assert run_main(["--check", FIXTURE])[0] == 0  # the default limit, 80


def test_reads_folders_by_extension():
    root = tempfile.mkdtemp(prefix="rr_long_functions_")
    try:
        os.makedirs(os.path.join(root, "sub"))
        body = "void f() {\n" + "  int x = 0;\n" * 3 + "}\n"  # 5 lines
        for name in ("a.cpp", "sub/b.cu", "sub/c.h", "notes.txt"):
            with open(os.path.join(root, name), "w") as f:
                f.write(body)
        status, out, _ = run_main(["--check", "--max", "4", root])
        assert status == 1
        listed = sorted(line.split(":")[0] for line in out.splitlines())
        assert listed == [os.path.join(root, p) for p in ("a.cpp", "sub/b.cu", "sub/c.h")]
        assert all(line.endswith(" f 5") for line in out.splitlines())
    finally:
        shutil.rmtree(root)


def test_every_class_of_the_fixture_with_its_member_functions():
    with open(CLASS_FIXTURE) as f:
        assert list(long_functions.classes(f.read())) == [(13, "Big", 8), (28, "Nested", 2), (42, "Plain", 0),
                                                          (44, "Operators", 6), (59, "Defaulted", 2)]
    # Operators' bodies and the constrained template are functions too.
    with open(CLASS_FIXTURE) as f:
        names = [name for _, name, _ in long_functions.functions(f.read())]
    assert names == ["Big", "inline_body", "two", "operator==", "operator+=", "operator()", "constrained", "peek",
                     "twice", "elaborated"]
    # The function fixture's one class: a constructor, an inline member and a destructor.
    with open(FIXTURE) as f:
        assert list(long_functions.classes(f.read())) == [(25, "Widget", 3)]


def test_max_methods_lists_the_larger_classes_and_checks():
    status, out, _ = run_main(["--max-methods", "1", CLASS_FIXTURE])
    assert status == 0
    assert out.splitlines() == [f"{CLASS_FIXTURE}:13 Big 8", f"{CLASS_FIXTURE}:44 Operators 6",
                                f"{CLASS_FIXTURE}:28 Nested 2", f"{CLASS_FIXTURE}:59 Defaulted 2"]
    assert run_main(["--max-methods", "7", "--check", CLASS_FIXTURE])[0] == 1
    assert run_main(["--max-methods", "8", "--check", CLASS_FIXTURE]) == (0, "", "")


def test_a_missing_path_is_a_one_line_error():
    status, out, err = run_main(["/nonexistent/rr_folder"])
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "/nonexistent/rr_folder does not exist" in err


if __name__ == "__main__":
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    for test in tests:
        test()
    print(f"{len(tests)} tests passed")
