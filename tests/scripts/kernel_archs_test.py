#!/usr/bin/env python3
"""The injection library carries its kernels for every configured architecture.

    kernel_archs_test.py fatbin   LIBRARY ARCHITECTURES
    kernel_archs_test.py cuobjdump LIBRARY ARCHITECTURES CUOBJDUMP

ARCHITECTURES is RANGEREPLAY_KERNEL_ARCHITECTURES in CMake's CUDA_ARCHITECTURES
syntax ("80-real;90-real;120"): "N-real" asks for sm_N machine code, "N-virtual"
for compute_N PTX, a plain "N" for both. The check fails when the library
lacks any of them, or holds machine code or PTX the list does not name.

fatbin mode reads the fat binary headers of the library's .nv_fatbin section
(extracted with objcopy), so it runs wherever binutils do. cuobjdump mode asks
`cuobjdump --list-elf` and `--list-ptx` instead, and exits 77 (CTest: skipped)
when CUOBJDUMP is empty or not a program.
"""

import os
import re
import struct
import subprocess
import sys
import tempfile

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX = 1
KIND_ELF = 2


def expected_images(spec):
    """(machine code archs, PTX archs) the CUDA_ARCHITECTURES list asks for."""
    elf, ptx = set(), set()
    for item in filter(None, spec.split(";")):
        match = re.fullmatch(r"(\d+)[af]?(-real|-virtual)?", item)
        if not match:
            sys.exit(f"FAILED: cannot check the architecture '{item}' of '{spec}': "
                     "name architectures by number (80-real, 120)")
        arch = int(match.group(1))
        if match.group(2) != "-virtual":
            elf.add(arch)
        if match.group(2) != "-real":
            ptx.add(arch)
    return elf, ptx


def fatbin_images(section):
    """(machine code archs, PTX archs) in the concatenated fat binaries `section`.

    Layout of one fat binary: a 16-byte header (u32 magic 0xBA55ED50, u16
    version, u16 header size, u64 bytes of entries), then entries, each a header
    (u16 kind: 1 PTX, 2 ELF; u16 flags; u32 header size; u64 payload size; u32,
    u32; u16 minor, u16 major version; u32 arch, e.g. 90) and its payload.
    Fat binaries follow each other at 8-byte boundaries.
    """
    elf, ptx = set(), set()
    at = 0
    containers = 0
    while at + 16 <= len(section):
        magic, _, header_size, fat_size = struct.unpack_from("<IHHQ", section, at)
        if magic != FATBIN_MAGIC:
            at += 8  # padding between two objects' fat binaries
            continue
        containers += 1
        entry = at + header_size
        end = entry + fat_size
        if end > len(section):
            sys.exit(f"FAILED: fat binary at offset {at} runs past the section ({end} > {len(section)})")
        while entry + 32 <= end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", section, entry)
            (arch,) = struct.unpack_from("<I", section, entry + 28)
            if entry_header == 0:
                sys.exit(f"FAILED: fat binary entry at offset {entry} has no header size")
            if kind == KIND_ELF:
                elf.add(arch)
            elif kind == KIND_PTX:
                ptx.add(arch)
            entry += entry_header + payload
        at = (end + 7) // 8 * 8
    if containers == 0:
        sys.exit("FAILED: no fat binary in the library's .nv_fatbin section")
    return elf, ptx


def from_fatbin(library):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "nv_fatbin")
        result = subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", library, out],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            sys.exit(f"FAILED: objcopy cannot read {library}: {result.stderr.strip()}")
        with open(out, "rb") as f:
            section = f.read()
    if not section:
        sys.exit(f"FAILED: {library} has no .nv_fatbin section (no device code)")
    return fatbin_images(section)


def from_cuobjdump(library, cuobjdump):
    images = []
    for flag, kind in (("--list-elf", "sm"), ("--list-ptx", "compute")):
        result = subprocess.run([cuobjdump, flag, library], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            sys.exit(f"FAILED: {cuobjdump} {flag} {library}: {result.stderr.strip()}")
        # Lines such as "ELF file    1: librangereplay_inject.1.sm_80.cubin"
        # and "PTX file    1: librangereplay_inject.1.sm_120.ptx".
        archs = {int(a) for a in re.findall(r"\.sm_(\d+)[af]?\.(?:cubin|ptx)\b", result.stdout)}
        print(f"{flag}: {', '.join(f'{kind}_{a}' for a in sorted(archs)) or 'none'}")
        images.append(archs)
    return images[0], images[1]


def main(argv):
    if len(argv) < 4 or argv[1] not in ("fatbin", "cuobjdump"):
        sys.exit(__doc__)
    mode, library, spec = argv[1], argv[2], argv[3]
    if not os.path.isfile(library):
        sys.exit(f"FAILED: {library} does not exist (build the rangereplay_inject target)")
    want_elf, want_ptx = expected_images(spec)
    if mode == "cuobjdump":
        cuobjdump = argv[4] if len(argv) > 4 else ""
        if not cuobjdump or not os.access(cuobjdump, os.X_OK):
            print("cuobjdump not found (the CUDA toolkit's cuda-cuobjdump package): skipped")
            return 77
        have_elf, have_ptx = from_cuobjdump(library, cuobjdump)
    else:
        have_elf, have_ptx = from_fatbin(library)
        print(f"machine code: {', '.join(f'sm_{a}' for a in sorted(have_elf)) or 'none'}")
        print(f"PTX: {', '.join(f'compute_{a}' for a in sorted(have_ptx)) or 'none'}")
    problems = []
    for what, prefix, want, have in (("machine code", "sm", want_elf, have_elf), ("PTX", "compute", want_ptx, have_ptx)):
        if want - have:
            problems.append(f"{library} lacks {what} for {', '.join(f'{prefix}_{a}' for a in sorted(want - have))}")
        if have - want:
            problems.append(f"{library} has {what} for {', '.join(f'{prefix}_{a}' for a in sorted(have - want))}, "
                            f"which RANGEREPLAY_KERNEL_ARCHITECTURES ({spec}) does not name")
    for problem in problems:
        print(f"FAILED: {problem}")
    if problems:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
