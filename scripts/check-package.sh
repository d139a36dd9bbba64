#!/usr/bin/env bash
# Makes the Debian packages of a build folder (`cpack`) and installs them in a
# clean root, offline, on a machine without a GPU:
#  1. the packages: rangereplay's Depends names the Debian libraries its
#     binaries link and CUPTI's package, nothing else; Recommends names the
#     driver; its binaries are stripped, each with a .gnu_debuglink whose
#     checksum matches its file in rangereplay-dbgsym; the man page and the
#     bash and zsh completions are in it; its run paths pass
#     scripts/check-runpath.sh;
#  2. the clean root: an empty dpkg database holding only the packages
#     rangereplay's Depends name, installed from this machine's own copies
#     (their files and their dpkg records, as apt would have installed them),
#     plus a stand-in for NVIDIA's CUPTI package (the CUDA toolkit's CUPTI
#     libraries under the package's name, where the binaries' run path looks:
#     NVIDIA's repositories cannot be reached here). `dpkg --root` must refuse
#     rangereplay without the CUPTI package and install it with it;
#  3. in that root (chroot, with its own /proc in a private mount and PID
#     namespace), `rangereplay --version` (reporting "no driver"),
#     `rangereplay --list-sets` and `rangereplay-metrics-probe --sets` run.
# Needs root, or user namespaces for `unshare -r`; dpkg, dpkg-deb, cpack.
# Exit 0 when every check passes, 1 naming the first failure, 2 on a usage
# error.
#   scripts/check-package.sh <build-dir>
set -uo pipefail
build=${1:-}
[[ -n $build && -f $build/CPackConfig.cmake ]] || {
  echo "usage: scripts/check-package.sh <build-dir> (a configured build folder with CPackConfig.cmake)" >&2
  exit 2
}
build=$(cd "$build" && pwd)
for tool in cpack dpkg dpkg-deb dpkg-query readelf objcopy python3 unshare chroot ldconfig; do
  command -v "$tool" >/dev/null || { echo "check-package: $tool not found; install it (dpkg-dev, binutils, util-linux, cmake)" >&2; exit 2; }
done
fail() {
  echo "check-package: $*" >&2
  exit 1
}
tmp=$(mktemp -d /tmp/rangereplay-package.XXXXXX)
# CHECK_PACKAGE_KEEP=1 keeps the packages and the root for a look (the folder is printed).
if [[ ${CHECK_PACKAGE_KEEP:-} == 1 ]]; then echo "check-package: keeping $tmp" >&2; else trap 'rm -rf "$tmp"' EXIT; fi
# As root, directly; otherwise as root of a new user namespace.
as_root=()
((EUID == 0)) || as_root=(unshare -r)

# --- 1. the packages ---
(cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack failed: $(tail -5 "$tmp/cpack.log")"
deb=$(ls "$tmp"/out/rangereplay_*.deb 2>/dev/null | head -1)
dbg=$(ls "$tmp"/out/rangereplay-dbgsym_*.deb 2>/dev/null | head -1)
[[ -f $deb ]] || fail "cpack made no rangereplay_*.deb: $(ls "$tmp/out")"
[[ -f $dbg ]] || fail "cpack made no rangereplay-dbgsym_*.deb: $(ls "$tmp/out")"
depends=$(dpkg-deb -f "$deb" Depends)
recommends=$(dpkg-deb -f "$deb" Recommends)
cupti_pkg=$(sed -n 's/.*\(cuda-cupti-[0-9]*-[0-9]*\).*/\1/p' <<<"$depends")
[[ -n $cupti_pkg ]] || fail "Depends does not name NVIDIA's CUPTI package (cuda-cupti-M-N): '$depends'"
# The Debian packages: exactly those holding the libraries the binaries link.
names=$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | grep -v '^cuda-cupti-' | sort | tr '\n' ' ')
[[ $names == "libc6 libgcc-s1 libre2-9 libstdc++6 " ]] ||
  fail "Depends should name libc6, libgcc-s1, libre2-9 and libstdc++6 besides CUPTI, names '$names' ('$depends')"
[[ $recommends == libcuda1* ]] || fail "Recommends should name the driver's libcuda1: '$recommends'"
grep -q libcuda <<<"$depends" && fail "Depends names the driver; it is only recommended: '$depends'"
mkdir -p "$tmp/x" "$tmp/xdbg"
dpkg-deb -x "$deb" "$tmp/x" && dpkg-deb -x "$dbg" "$tmp/xdbg" || fail "dpkg-deb -x failed"
prefix=/usr/local
for f in bin/rangereplay bin/rangereplay-metrics-probe lib/librangereplay_inject.so \
  lib/librangereplay_cli_metrics.so lib/librangereplay_cli_metrics_host.so share/man/man1/rangereplay.1.gz \
  share/bash-completion/completions/rangereplay share/zsh/site-functions/_rangereplay; do
  [[ -s $tmp/x$prefix/$f ]] || fail "rangereplay's package lacks $prefix/$f"
done
# Only absolute run path entries in the packaged binaries, as in the install.
bash "$(dirname "$0")/check-runpath.sh" "$tmp/x" >/dev/null || fail "a packaged binary has an empty or relative run path entry (above)"
for f in bin/rangereplay bin/rangereplay-metrics-probe lib/librangereplay_inject.so \
  lib/librangereplay_cli_metrics.so lib/librangereplay_cli_metrics_host.so; do
  bin=$tmp/x$prefix/$f
  debug=$tmp/xdbg$prefix/$(dirname "$f")/.debug/$(basename "$f").debug
  readelf -S "$bin" 2>/dev/null | grep >/dev/null '\.debug_info' && fail "$f is not stripped (it has .debug_info)"
  [[ -f $debug ]] || fail "rangereplay-dbgsym lacks $prefix/$(dirname "$f")/.debug/$(basename "$f").debug"
  readelf -S "$debug" 2>/dev/null | grep >/dev/null '\.debug_info' || fail "$debug holds no .debug_info"
  objcopy --dump-section .gnu_debuglink="$tmp/link" "$bin" "$tmp/unused" 2>/dev/null ||
    fail "$f has no .gnu_debuglink"
  python3 - "$tmp/link" "$debug" "$f" <<'EOF' || exit 1
import sys, zlib
link, debug, name = sys.argv[1:]
data = open(link, "rb").read()
want_name = data.split(b"\0", 1)[0].decode()
crc = int.from_bytes(data[-4:], "little")
actual = zlib.crc32(open(debug, "rb").read()) & 0xFFFFFFFF
if want_name != debug.rsplit("/", 1)[1] or crc != actual:
    sys.exit(f"check-package: {name}'s .gnu_debuglink names {want_name} (crc {crc:08x}), "
             f"not its debug file {debug} (crc {actual:08x})")
EOF
done

# --- 2. a clean root with only the dependencies ---
root=$tmp/root
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/var/lib/dpkg/{info,updates} "$root"/{etc,proc,dev,tmp}
chmod 1777 "$root/tmp"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done  # a merged /usr, as Debian 12's
# The loader's configuration of every Debian system (libc-bin, Essential).
echo "include /etc/ld.so.conf.d/*.conf" >"$root/etc/ld.so.conf"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
# The dependency closure of the Debian packages Depends names, as installed here.
declare -A seen=()
queue=($names)
while ((${#queue[@]})); do
  p=${queue[0]}
  queue=("${queue[@]:1}")
  [[ -n ${seen[$p]:-} ]] && continue
  seen[$p]=1
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    fail "$p (a dependency) is not installed on this machine; install it to build the clean root"
  for dep in $(dpkg-query -W -f='${Depends}, ${Pre-Depends}' "$p" | tr ',' '\n' | sed 's/|.*//; s/^ *//; s/[ :].*//'); do
    [[ -n $dep && -z ${seen[$dep]:-} ]] && dpkg-query -W "$dep" >/dev/null 2>&1 && queue+=("$dep")
  done
done
for p in "${!seen[@]}"; do
  dpkg-query -L "$p" | while IFS= read -r f; do
    if [[ (-f $f || -L $f) && ! -d $f ]]; then printf '%s\n' "$f"; fi
  done | tar -C / -cf - --no-recursion -T - 2>/dev/null | tar -C "$root" -xf - --keep-directory-symlink ||
    fail "could not copy $p's files into the clean root"
  {
    dpkg-query -s "$p"
    echo
  } >>"$root/var/lib/dpkg/status"
  # Its file list, checksums and the like (named <package>[:<arch>].<kind>).
  cp -P /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":*.* "$root/var/lib/dpkg/info/" 2>/dev/null
done
# CUPTI: a stand-in for NVIDIA's package, with the toolkit's CUPTI libraries
# where the binaries' run path looks for them.
runpath=$(readelf -d "$tmp/x$prefix/bin/rangereplay-metrics-probe" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p' | cut -d: -f1)
[[ -n $runpath ]] || fail "rangereplay-metrics-probe has no run path naming the CUDA toolkit's folder"
cupti_so=$(ldd "$tmp/x$prefix/bin/rangereplay-metrics-probe" | sed -n 's/.*libcupti.so.[0-9]* => \(.*\) (.*/\1/p')
[[ -f $cupti_so ]] || fail "the CUDA toolkit's libcupti is not found on this machine (ldd)"
stand_in=$tmp/cupti
mkdir -p "$stand_in/DEBIAN" "$stand_in$runpath" "$stand_in/etc/ld.so.conf.d"
cp -P "$(dirname "$cupti_so")"/lib{cupti,nvperf_host,nvperf_target,checkpoint}.so* "$stand_in$runpath/" 2>/dev/null
# CUPTI loads libnvperf_host.so by name, through the loader's configured
# folders: NVIDIA's toolkit packages list theirs in /etc/ld.so.conf.d.
echo "$runpath" >"$stand_in/etc/ld.so.conf.d/988_cuda.conf"
cat >"$stand_in/DEBIAN/control" <<EOF
Package: $cupti_pkg
Version: 0-standin
Architecture: $(dpkg --print-architecture)
Maintainer: rangereplay tests
Description: stand-in for NVIDIA's CUPTI package (the CUDA toolkit's CUPTI libraries)
EOF
dpkg-deb --root-owner-group -b "$stand_in" "$tmp/cupti.deb" >/dev/null || fail "could not build the CUPTI stand-in"
ldconfig -r "$root" 2>/dev/null
dpkg_root() { "${as_root[@]}" dpkg --root="$root" --force-not-root --force-bad-path "$@"; }
# Without CUPTI's package the dependency is unmet...
if dpkg_root -i "$deb" >"$tmp/dpkg.log" 2>&1; then
  fail "dpkg installed rangereplay without $cupti_pkg: Depends does not hold"
fi
grep -q "depends on $cupti_pkg" "$tmp/dpkg.log" || fail "dpkg refused rangereplay for another reason: $(cat "$tmp/dpkg.log")"
# ...and with it every dependency is met.
dpkg_root -i "$tmp/cupti.deb" "$deb" >"$tmp/dpkg.log" 2>&1 || fail "dpkg could not install the packages: $(cat "$tmp/dpkg.log")"
dpkg_root --audit >"$tmp/audit.log" 2>&1 && ! [[ -s $tmp/audit.log ]] || fail "dpkg --audit: $(cat "$tmp/audit.log")"
ldconfig -r "$root" 2>/dev/null

# --- 3. run it there ---
# The host's /dev (bound) and a /proc of its own, as a container has.
in_root() {
  timeout 60 "${as_root[@]}" unshare --mount --pid --fork --mount-proc="$root/proc" \
    sh -c 'mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' "$root" "$@"
}
out=$(in_root "$prefix/bin/rangereplay" --version 2>&1) || fail "rangereplay --version failed in the clean root: $out"
grep -q "^rangereplay [0-9]" <<<"$out" && grep -q "^commit: " <<<"$out" && grep -q "^built with: CUDA " <<<"$out" &&
  grep -q "^driver: no driver (libcuda.so.1 cannot be loaded)" <<<"$out" ||
  fail "rangereplay --version in the clean root printed: $out"
echo "$out" | sed 's/^/  /'
out=$(in_root "$prefix/bin/rangereplay" --list-sets 2>&1) || fail "rangereplay --list-sets failed in the clean root: $out"
grep -q "^basic " <<<"$out" || fail "rangereplay --list-sets lists no 'basic' set in the clean root: $out"
out=$(in_root "$prefix/bin/rangereplay-metrics-probe" --sets 2>&1) ||
  fail "rangereplay-metrics-probe --sets failed in the clean root: $out"
grep -q "basic" <<<"$out" || fail "rangereplay-metrics-probe --sets printed no 'basic' set: $out"
echo "check-package: ok ($(basename "$deb") $(du -k "$deb" | cut -f1) KiB, $(basename "$dbg") $(du -k "$dbg" | cut -f1) KiB; Depends: $depends; Recommends: $recommends)"
