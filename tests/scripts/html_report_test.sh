#!/usr/bin/env bash
# The HTML report in a real browser: `rangereplay report` writes the page of
# a recorded JSON fixture (tests/scripts/data/roofline_report.json: a
# replayed range whose two kernels carry every metric the roofline reads,
# with made-up values, and a declined range), of the plain sample report (no
# roofline metrics) and of two real `--set full` profiles recorded on an H200
# by tests/e2e/reports.py (examples/stream, 2 ranges of 6 kernels; the
# torch-train workload, 2 steps of 560 kernels); headless Chromium runs the
# page's script, whose findings (#rr-check) must show every chart of every
# range drawn (the replay window, the roofline and, where a kernel executes
# no floating-point instruction, the band of kernels without floating-point
# work), every kernel in the table and in a block of its own, every
# group member with a block, and no script error; the stream page opened at a
# kernel's link lists its metrics, the torch page opened at a group's link
# lists the group's kernels, and its group table begins with the step's
# largest group. The screenshots
# of the stream and torch-train pages are kept beside the build as
# html_report.png and html_report_torch.png. Exit 77 (skip) without Chromium
# or Debian's libjs-chart.js.
#   tests/scripts/html_report_test.sh <build-dir>
set -uo pipefail
build=${1:?build dir}
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || { echo "skipped: no chromium (apt-get install chromium)"; exit 77; }
[[ -f /usr/share/javascript/chart.js/chart.min.js ]] || { echo "skipped: no Chart.js (apt-get install libjs-chart.js)"; exit 77; }
out=$(mktemp -d /tmp/rangereplay-html.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "html_report_test: $*" >&2; exit 1; }
rr=$build/tools/cli/rangereplay
# A profile folder of its own: no lock left by another Chromium (a run killed
# earlier, or one running beside this test) can refuse the page.
browse() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$out/chromium" \
    --virtual-time-budget=10000 "$@" 2>/dev/null
}
# check <page> <charts> <kernel rows> [#fragment]: loads the page (at the
# fragment, if given) once, keeps its DOM as <page>.dom and its findings as
# <page>.check.
check() {
  browse --dump-dom "file://$1${4:-}" >"$1.dom"
  python3 -c '
import html, json, re, sys
m = re.search(r"<pre id=\"rr-check\"[^>]*>([^<]*)</pre>", open(sys.argv[1]).read())
print(html.unescape(m.group(1)) if m else "{}")' "$1.dom" >"$1.check"
  python3 - "$1.check" "$2" "$3" <<'PY' || fail "$1: the page drew $(cat "$1.check")"
import json, sys
c = json.loads(open(sys.argv[1]).read() or "{}")
ok = (c.get("charts") == int(sys.argv[2]) and c.get("canvases_drawn") == c.get("charts")
      and c.get("kernel_rows") == int(sys.argv[3]) and c.get("kernel_blocks") == int(sys.argv[3])
      and c.get("group_kernels_without_block") == 0 and c.get("errors") == [])
sys.exit(0 if ok else 1)
PY
}
# found <page> <python expression of c, the page's findings>
found() {
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1.check" "$2" ||
    fail "$1: not $2 in $(cat "$1.check")"
}
"$rr" report "$here/data/roofline_report.json" -o "$out/roofline.html" || fail "rangereplay report failed"
check "$out/roofline.html" 2 2
# Whole-range values (the kernels listed without values of their own): the
# range's values in a table of their own and the range on the roofline.
"$rr" report "$here/data/whole_range_report.json" -o "$out/whole.html" || fail "rangereplay report failed"
check "$out/whole.html" 2 2
grep -q '<th class="l">whole range: metric</th>' "$out/whole.html.dom" ||
  fail "the whole-range page does not show the range's values"
"$rr" report "$here/../python/data/sample_report.json" -o "$out/sample.html" || fail "rangereplay report failed"
check "$out/sample.html" 1 2
# The page names the metrics the roofline lacks (its script writes the note).
grep -q "No roofline: the report lacks gpu__time_duration.sum, dram__bytes.sum" "$out/sample.html.dom" ||
  fail "the sample page does not name the roofline's missing metrics"
# Real profiles (xz-compressed fixtures): three charts per range (each range
# of both has kernels without floating-point work).
for f in stream_full_h200 torch_train_full_h200; do
  xz -dc "$here/data/$f.json.xz" >"$out/$f.json" || fail "cannot unpack $f.json.xz (apt-get install xz-utils)"
  "$rr" report "$out/$f.json" -o "$out/$f.html" || fail "rangereplay report $f.json failed"
done
# The stream page opened at a kernel's block: its metrics listed with units.
check "$out/stream_full_h200.html" 6 12 "#rr-r1-k3"
found "$out/stream_full_h200.html" 'c["opened_kernel"] == "rr-r1-k3"'
grep -q '<details class="kernel" id="rr-r1-k3" data-filled="1" open="">' "$out/stream_full_h200.html.dom" ||
  fail "the stream page does not open kernel 3 of range 1 at its link"
grep -q '<td class="l">gpu__time_duration.sum</td><td>[0-9.]* µs</td><td class="l">nanosecond</td>' "$out/stream_full_h200.html.dom" ||
  fail "the stream page's kernel block has no duration in µs"
# Its sections (Speed Of Light first) and the guidance's findings (memory bound).
found "$out/stream_full_h200.html" 'c["section_tables"] >= 6 and c["findings"] >= 2'
grep -q '<h4 class="section">GPU Speed Of Light Throughput</h4>' "$out/stream_full_h200.html.dom" ||
  fail "the stream page's kernel block has no Speed Of Light section"
grep -q '<li><b>Memory bound: </b>' "$out/stream_full_h200.html.dom" ||
  fail "the stream page's kernel block does not say the kernel is memory bound"
# The torch page opened at the second step's first kernel group: the 21
# cutlass::Kernel2 SGEMMs (kernel_groups_test.cpp), each linked to its block.
check "$out/torch_train_full_h200.html" 6 1120 "#rr-r1-g0"
found "$out/torch_train_full_h200.html" 'c["group_rows"] == 68 and c["first_groups"] == ["Kernel2", "Kernel2"]'
found "$out/torch_train_full_h200.html" 'c["opened_group"] == "rr-r1-g0" and c["opened_group_links"] == 21'
cp "$out/torch_train_full_h200.html.dom" "$out/torch.dom"
grep -q '<span class="short">Kernel2</span><span class="note"> (3 names)</span></td><td>21</td><td>3.5[0-9] ms</td><td>25.9</td>' "$out/torch.dom" ||
  fail "the torch page's first group is not Kernel2: 21 kernels, 3.5 ms, 25.9 %"
# The torch step's roofline: FP16 and tensor FP16 counted, the tensor types the
# recording lacks named, the ceilings in a table with their units.
grep -q "Roofline: 556 of 560 kernels with a duration on the chart (99.3%): 299 on the roofline, 257 in the band" "$out/torch.dom" ||
  fail "the torch page does not count its kernels on the roofline and in the band"
# The kernels without floating-point work (257 and 253 with DRAM bytes) are
# points of the band; those that move no DRAM byte either are named under it.
found "$out/torch_train_full_h200.html" 'c["band_points"] == 510 and c["roofline_points"] == 598'
grep -q "Not on the chart: 4 kernels with no FLOP, no DRAM bytes (a log scale has no place for 0): <a href=\"#rr-r0-k469\"" "$out/torch.dom" ||
  fail "the torch page does not name the kernels on neither the roofline nor the band"
grep -q "FLOPs not counted for tensor FP64, tensor TF32, tensor BF16, tensor FP8: the report lacks" "$out/torch.dom" ||
  fail "the torch page does not name the data types it cannot count"
grep -q '<td class="l">DRAM bandwidth</td><td>[0-9.]* TB/s</td>' "$out/torch.dom" ||
  fail "the torch page has no DRAM ceiling in TB/s"
grep -q '<td class="l">FP32</td><td>[0-9.]* TFLOP/s</td>' "$out/torch.dom" || fail "the torch page has no FP32 ceiling"
browse --window-size=1400,1300 --screenshot="$build/html_report.png" "file://$out/stream_full_h200.html" >/dev/null
browse --window-size=1400,1300 --screenshot="$build/html_report_torch.png" "file://$out/torch_train_full_h200.html" >/dev/null
[[ -s $build/html_report.png && -s $build/html_report_torch.png ]] || fail "no screenshot"
echo "html_report_test: ok (screenshots $build/html_report.png, $build/html_report_torch.png)"
