// The report as a self-contained HTML page (see report_html.h). The page's
// own script reads the report JSON embedded in it and draws with Chart.js.
#include "report/report_html.h"

#include <array>

#include "report/report_file.h"
#include "report/report_json.h"

namespace rangereplay::report {

namespace {

constexpr std::array<std::string_view, 17> kRooflineMetrics = {
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "gpu__time_duration.sum",
    "dram__bytes.sum",
    "lts__t_bytes.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
    "sm__cycles_elapsed.avg.per_second",
    "dram__bytes.sum.peak_sustained",
    "dram__cycles_elapsed.avg.per_second",
    "lts__t_bytes.sum.peak_sustained",
    "lts__cycles_elapsed.avg.per_second",
    "smsp__inst_executed.sum",
};

// JSON that may sit inside a <script> element: every '<' written as \u003c
// (the same string to a JSON reader), so neither "</script" nor "<!--" in a
// name can end or change the element.
std::string json_in_script(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// Script source inside a <script> element: "</" would end it.
std::string script_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

constexpr std::string_view kHead = R"html(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rangereplay report</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}th,td{border:1px solid #ddd;padding:.2em .5em;text-align:right}
th{background:#f3f3f3;cursor:pointer}td.l,th.l{text-align:left}.note{color:#555;font-size:.9em}.declined{color:#a00}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}.chart{width:640px;height:300px}.roof{width:640px;height:420px}
</style>
)html";

// The page's script: reads #rr-data, draws, writes #rr-check.
constexpr std::string_view kPageScript = R"js(
(function () {
  const check = {charts: 0, canvases_drawn: 0, kernel_rows: 0, ranges: 0, errors: []};
  window.addEventListener('error', e => check.errors.push(String(e.message)));
  const roofNames = JSON.parse(document.getElementById('rr-roofline').textContent);
  const report = JSON.parse(document.getElementById('rr-data').textContent);
  const root = document.getElementById('rr-root');
  const num = v => typeof v === 'string' ? (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : NaN) : v;
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const fmt = v => { v = num(v); return Number.isFinite(v) ? (Math.abs(v) >= 1e5 ? v.toExponential(3) : +v.toPrecision(6)).toString() : String(v); };
  const bytes = b => { const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB']; let i = 0; while (b >= 1024 && i < 4) { b /= 1024; i++; } return b.toFixed(1) + ' ' + u[i]; };
  const charts = typeof Chart !== 'undefined';
  const add = (parent, e) => { parent.appendChild(e); return e; };

  add(root, el('h1', {}, 'rangereplay report'));
  add(root, el('p', {}, `${report.device_name || 'device unknown'} ${report.chip_name ? '(' + report.chip_name + ')' : ''}, driver ${report.driver_version || '?'}; ` +
    `${report.metrics.length} metrics in ${report.pass_count} passes, ${report.range_metrics === 'whole' ? 'whole-range' : 'per-kernel'} values; command: ${(report.command || []).join(' ')}`));
  if (!charts) add(root, el('p', {class: 'note'}, 'Charts unavailable: this page was written without Chart.js (install Debian\'s libjs-chart.js and write it again).'));
  const tb = report.time_budget;
  if (tb && num(tb.wall_ms) > 0) {
    const t = add(root, el('table'));
    const h = add(t, el('tr')); add(h, el('th', {class: 'l'}, 'time budget')); add(h, el('th', {}, 'ms')); add(h, el('th', {}, '% of wall'));
    for (const [k, v] of Object.entries(tb)) {
      if (!k.endsWith('_ms') || k.endsWith('clock_ms')) continue;
      const r = add(t, el('tr')); add(r, el('td', {class: 'l'}, k.replace(/_ms$/, '').replace(/_/g, ' ')));
      add(r, el('td', {}, num(v).toFixed(1))); add(r, el('td', {}, (100 * num(v) / num(tb.wall_ms)).toFixed(1)));
    }
  }

  const stages = ['sync', 'capture', 'restore', 'replay_submit', 'kernels', 'counters', 'decode', 'verify', 'other'];
  const colors = ['#8da0cb', '#66c2a5', '#fc8d62', '#e78ac3', '#a6d854', '#ffd92f', '#e5c494', '#b3b3b3', '#1f78b4'];
  const drawn = canvas => {
    const ctx = canvas.getContext('2d');
    const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true;
    return false;
  };
  const canvases = [];
  const chart = (parent, cls, config) => {
    const box = add(parent, el('div', {class: cls}));
    const canvas = add(box, el('canvas'));
    config.options = Object.assign({animation: false, responsive: true, maintainAspectRatio: false}, config.options || {});
    new Chart(canvas, config);
    check.charts++;
    canvases.push(canvas);
  };
  const metricOf = (list, name) => { const m = (list || []).find(x => x.name === name); return m ? num(m.value) : undefined; };

  // Roofline points of one metric list (a kernel's, or the range's sums).
  const roofPoint = get => {
    const t = get('gpu__time_duration.sum') * 1e-9;
    const sp = 2 * get('smsp__sass_thread_inst_executed_op_ffma_pred_on.sum') + get('smsp__sass_thread_inst_executed_op_fadd_pred_on.sum') + get('smsp__sass_thread_inst_executed_op_fmul_pred_on.sum');
    const dp = 2 * get('smsp__sass_thread_inst_executed_op_dfma_pred_on.sum') + get('smsp__sass_thread_inst_executed_op_dadd_pred_on.sum') + get('smsp__sass_thread_inst_executed_op_dmul_pred_on.sum');
    const flops = sp + dp;
    return {flops_s: flops / t, dram_ai: flops / get('dram__bytes.sum'), l2_ai: flops / get('lts__t_bytes.sum')};
  };

  for (const r of report.ranges) {
    check.ranges++;
    const sec = add(root, el('section'));
    add(sec, el('h2', {}, `range ${r.index} '${r.name}'`));
    if (r.declined) {
      add(sec, el('p', {class: 'declined'}, `declined: ${r.decline_reason}: ${r.decline_detail}`));
      continue;
    }
    const restored = (r.pass_records || []).reduce((s, p) => s + num(p.restored_bytes), 0);
    add(sec, el('p', {}, `${r.passes} passes, ${r.kernels.length} kernels, footprint ${bytes(num(r.footprint_bytes))}, ` +
      `restored ${bytes(restored)} in all (${r.restore || 'no'} restore), window ${num(r.timings.window_ms).toFixed(1)} ms` +
      (r.counter_ranges ? `, counter ranges: ${r.counter_ranges}` : '')));
    for (const n of r.notes || []) add(sec, el('p', {class: 'note'}, n));
    const box = add(sec, el('div', {class: 'charts'}));
    if (charts) {
      chart(box, 'chart', {type: 'bar', data: {labels: ['replay window'], datasets: stages.map((s, i) => ({label: s, data: [num(r.timings[s + '_ms'] || 0)], backgroundColor: colors[i]}))},
        options: {indexAxis: 'y', plugins: {title: {display: true, text: 'replay window stages (ms)'}}, scales: {x: {stacked: true, title: {display: true, text: 'ms'}}, y: {stacked: true}}}});
    }
    // The roofline: every name it reads must be a metric of the kernels.
    const names = new Set((r.kernels[0] || {metrics: []}).metrics.map(m => m.name).concat((r.range_metrics || []).map(m => m.name)));
    const missing = roofNames.filter(n => !names.has(n));
    if (missing.length) {
      add(sec, el('p', {class: 'note'}, `No roofline: the report lacks ${missing.join(', ')} (profile with --set full, which has them).`));
    } else if (charts) {
      // Kernels with values of their own; with whole-range values only the range is a point.
      const measured = r.kernels.filter(k => k.metrics.length);
      const kernelPoints = measured.map(k => ({k, p: roofPoint(n => metricOf(k.metrics, n))}));
      const sum = n => measured.reduce((s, k) => s + (metricOf(k.metrics, n) || 0), 0);
      const first = n => metricOf((measured[0] || {}).metrics, n) ?? metricOf(r.range_metrics, n);
      const whole = measured.length ? roofPoint(sum) : roofPoint(n => metricOf(r.range_metrics, n));
      const peakFlops = 2 * first('sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained') * first('sm__cycles_elapsed.avg.per_second');
      const dramBw = first('dram__bytes.sum.peak_sustained') * first('dram__cycles_elapsed.avg.per_second');
      const l2Bw = first('lts__t_bytes.sum.peak_sustained') * first('lts__cycles_elapsed.avg.per_second');
      const roof = bw => { const pts = []; for (let e = -3; e <= 4; e += 0.25) { const x = Math.pow(10, e); pts.push({x, y: Math.min(peakFlops, bw * x)}); } return pts; };
      const ok = p => Number.isFinite(p.x) && Number.isFinite(p.y) && p.x > 0 && p.y > 0;
      const off = kernelPoints.filter(({p}) => !ok({x: p.dram_ai, y: p.flops_s})).length;
      if (off) add(sec, el('p', {class: 'note'}, `${off} of ${kernelPoints.length} kernels are not on the roofline (no FLOPs, no duration or no bytes: a log scale has no place for 0).`));
      chart(box, 'roof', {type: 'scatter', data: {datasets: [
        {label: 'DRAM ceiling', data: roof(dramBw), showLine: true, pointRadius: 0, borderColor: '#1f78b4'},
        {label: 'L2 ceiling', data: roof(l2Bw), showLine: true, pointRadius: 0, borderColor: '#33a02c'},
        {label: 'kernels (DRAM)', data: kernelPoints.map(({p}) => ({x: p.dram_ai, y: p.flops_s})).filter(ok), backgroundColor: '#1f78b4'},
        {label: 'kernels (L2)', data: kernelPoints.map(({p}) => ({x: p.l2_ai, y: p.flops_s})).filter(ok), backgroundColor: '#33a02c'},
        {label: 'whole range (DRAM)', data: [{x: whole.dram_ai, y: whole.flops_s}].filter(ok), backgroundColor: '#e31a1c', pointRadius: 7, pointStyle: 'rectRot'},
      ]}, options: {plugins: {title: {display: true, text: 'roofline: FLOP/s against FLOP per byte'}},
        scales: {x: {type: 'logarithmic', title: {display: true, text: 'arithmetic intensity (FLOP/byte)'}},
                 y: {type: 'logarithmic', title: {display: true, text: 'FLOP/s'}}}}});
    }
    // Sortable kernel table: the set's key columns that the kernels have.
    const key = ['gpu__time_duration.sum', 'sm__throughput.avg.pct_of_peak_sustained_elapsed',
      'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed', 'dram__throughput.avg.pct_of_peak_sustained_elapsed',
      'smsp__inst_executed.sum', 'dram__bytes_read.sum'];
    let cols = key.filter(n => names.has(n));
    if (names.size <= 8 || !cols.length) cols = Array.from(names).slice(0, 8);
    if (names.size > cols.length) add(sec, el('p', {class: 'note'}, `The table shows ${cols.length} of ${names.size} metrics; the JSON report has them all.`));
    if ((r.range_metrics || []).length) {
      const t = add(sec, el('table', {class: 'range-values'}));
      const h = add(t, el('tr')); add(h, el('th', {class: 'l'}, 'whole range: metric')); add(h, el('th', {}, 'unit')); add(h, el('th', {}, 'value'));
      for (const m of r.range_metrics) { const tr = add(t, el('tr')); add(tr, el('td', {class: 'l'}, m.name)); add(tr, el('td', {}, m.unit)); add(tr, el('td', {}, fmt(m.value))); }
    }
    if (r.kernels.length) {
      const t = add(sec, el('table', {class: 'kernels'}));
      const head = add(t, el('tr'));
      const labels = ['#', 'kernel', 'grid', 'block'].concat(cols);
      const rows = r.kernels.map(k => [k.index, k.name || k.mangled_name, `(${k.grid.join(',')})`, `(${k.block.join(',')})`].concat(cols.map(c => metricOf(k.metrics, c))));
      const body = add(t, el('tbody'));
      const fill = () => { body.textContent = ''; for (const row of rows) { const tr = add(body, el('tr')); row.forEach((v, i) => add(tr, el('td', {class: i === 1 ? 'l' : ''}, i >= 4 ? (v === undefined ? '' : fmt(v)) : String(v)))); } };
      labels.forEach((label, i) => {
        const th = add(head, el('th', {class: i === 1 ? 'l' : ''}, label));
        let up = true;
        th.addEventListener('click', () => { rows.sort((a, b) => (typeof a[i] === 'number' ? a[i] - b[i] : String(a[i]).localeCompare(String(b[i]))) * (up ? 1 : -1)); up = !up; fill(); });
      });
      fill();
      check.kernel_rows += rows.length;
    }
  }
  check.canvases_drawn = canvases.filter(drawn).length;
  document.getElementById('rr-check').textContent = JSON.stringify(check);
})();
)js";

}  // namespace

std::span<const std::string_view> roofline_metrics() { return kRooflineMetrics; }

StatusOr<std::string> render_report_html(const Report& report, std::string_view chart_js) {
  RR_ASSIGN_OR_RETURN(std::string json, dump_report_json(report, -1));
  std::string roof = "[";
  for (std::string_view name : kRooflineMetrics) roof += (roof.size() > 1 ? ",\"" : "\"") + std::string(name) + "\"";
  roof += "]";
  std::string page(kHead);
  if (!chart_js.empty()) page += "<script>" + script_safe(chart_js) + "</script>\n";
  page += "</head><body>\n<div id=\"rr-root\"></div>\n<pre id=\"rr-check\" hidden></pre>\n";
  page += "<script type=\"application/json\" id=\"rr-data\">" + json_in_script(json) + "</script>\n";
  page += "<script type=\"application/json\" id=\"rr-roofline\">" + roof + "</script>\n";
  page += "<script>" + std::string(kPageScript) + "</script>\n</body></html>\n";
  return page;
}

Status write_report_html(const Report& report, std::string_view chart_js, const std::filesystem::path& path) {
  RR_ASSIGN_OR_RETURN(std::string page, render_report_html(report, chart_js));
  return write_text_file(path, page);
}

}  // namespace rangereplay::report
