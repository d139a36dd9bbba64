"""CPU tests of the end-to-end runner (run_e2e.py): every test it names has
its file, every file of this folder is a test or a named helper, a machine
without a GPU or a needed tool skips with one line, bad names are refused."""
import os
import subprocess
import sys
import unittest

import run_e2e

HERE = os.path.dirname(os.path.abspath(__file__))
HELPERS = {"e2e_common.py", "nccl_world1.py", "two_ranks.py", "run_e2e.py", "test_run_e2e.py"}


class RunE2eTest(unittest.TestCase):
    def test_every_test_has_its_file_and_every_file_is_a_test_or_a_helper(self):
        self.assertEqual(len(run_e2e.TESTS), 21)
        for name in run_e2e.TESTS:
            self.assertTrue(os.path.isfile(run_e2e.script(name)), name)
        files = {f for f in os.listdir(HERE) if f.endswith((".py", ".sh"))}
        tests = {os.path.basename(run_e2e.script(n)) for n in run_e2e.TESTS}
        self.assertEqual(files - tests, HELPERS)
        self.assertIn("snapshot_spill", run_e2e.TESTS)  # a shell test
        self.assertNotIn("two_ranks", run_e2e.TESTS)

    def test_the_reasons_to_skip(self):
        self.assertEqual(run_e2e.missing("verify", gpu=False), "no NVIDIA GPU (nvidia-smi -L failed)")
        self.assertIsNone(run_e2e.missing("verify", gpu=True))
        self.assertEqual(run_e2e.missing("profile_matches_ncu", which=lambda tool: None, gpu=True),
                         "ncu not installed")
        self.assertIsNone(run_e2e.missing("profile_matches_ncu", which=lambda tool: "/usr/bin/" + tool, gpu=True))

    def run_runner(self, *args, path=None):
        env = dict(os.environ)
        if path is not None:
            env["PATH"] = path
        return subprocess.run([sys.executable, os.path.join(HERE, "run_e2e.py"), *args], capture_output=True,
                              text=True, timeout=60, env=env)

    def test_a_machine_without_nvidia_smi_skips_every_test(self):
        empty = os.path.join(HERE, "no-such-folder")
        for name in ("verify", "snapshot_spill"):
            r = self.run_runner(name, "/nonexistent-build", path=empty)
            self.assertEqual(r.returncode, run_e2e.SKIPPED, r.stderr)
            self.assertEqual(r.stdout, "skipped: no NVIDIA GPU (nvidia-smi -L failed)\n")

    def test_unknown_names_and_missing_arguments_are_refused(self):
        for args in (("nope", "/b"), ("verify",), ()):
            r = self.run_runner(*args)
            self.assertEqual(r.returncode, 2)
            self.assertIn("usage: run_e2e.py NAME BUILD_DIR", r.stderr)

    def test_list_prints_every_test_once(self):
        r = self.run_runner("--list")
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout.split(), list(run_e2e.TESTS))


if __name__ == "__main__":
    unittest.main()
