// The report as a self-contained HTML page (see report_html.h). The page's
// own script reads the report JSON embedded in it and draws with Chart.js.
#include "report/report_html.h"

#include <exception>
#include <new>
#include <nlohmann/json.hpp>

#include "report/kernel_groups.h"
#include "report/kernel_sections.h"
#include "report/report_file.h"
#include "report/report_json.h"

namespace rangereplay::report {

namespace {

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
td.name{max-width:44em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
table.groups tr.group-row{cursor:pointer;background:#fafafa}table.groups tr.member td{font-size:.95em;color:#333}
details.kernel-blocks>summary{font-weight:bold;margin-top:1em;cursor:pointer}details.kernel summary{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:100%;cursor:pointer;font-size:.85em}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}.chart{width:640px;height:300px}.roof{width:640px;height:420px}.band{width:640px;height:300px}
</style>
)html";

// The page's script: reads #rr-data, draws, writes #rr-check. ASCII only
// (other characters as \u escapes): a page script with a character beyond
// ASCII made headless Chromium take about 1.5 s longer over the 44 MB page of
// a 1,120-kernel report.
constexpr std::string_view kPageScript = R"js(
(function () {
  const check = {charts: 0, canvases_drawn: 0, kernel_rows: 0, ranges: 0, roofline_points: 0, band_points: 0, group_rows: 0, first_groups: [],
    kernel_blocks: 0, group_kernels_without_block: 0, sample_charts: 0, section_tables: 0, findings: 0, opened_kernel: '', opened_group: '', opened_group_links: 0, errors: []};
  window.addEventListener('error', e => check.errors.push(String(e.message)));
  const report = JSON.parse(document.getElementById('rr-data').textContent);
  const groupsOf = JSON.parse(document.getElementById('rr-groups').textContent);
  const sectionsOf = JSON.parse(document.getElementById('rr-sections').textContent);
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
  // Durations in nanoseconds as ns, us, ms or s.
  const dur = ns => ns >= 1e9 ? (ns / 1e9).toFixed(2) + ' s' : ns >= 1e6 ? (ns / 1e6).toFixed(2) + ' ms' : ns >= 1e3 ? (ns / 1e3).toFixed(1) + ' \u00b5s' : ns.toFixed(0) + ' ns';
  const nsPer = {nanosecond: 1, nsecond: 1, usecond: 1e3, microsecond: 1e3, msecond: 1e6, millisecond: 1e6, second: 1e9};
  // A metric's value with its unit: times and bytes scaled, percentages with one decimal.
  const withUnit = (v, unit) => {
    v = num(v);
    if (!Number.isFinite(v)) return String(v);
    if (nsPer[unit]) return dur(v * nsPer[unit]);
    if (unit === 'byte') return bytes(v);
    if (unit === 'percent') return v.toFixed(1) + ' %';
    return fmt(v) + (unit ? ' ' + unit : '');
  };
  const pct = v => v === null || v === undefined ? '' : num(v).toFixed(1);
  const kernelId = (r, i) => `rr-r${r.index}-k${i}`;
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
    // Largest first, as the terminal's budget table: where the time went.
    const rows = Object.entries(tb).filter(([k]) => k.endsWith('_ms') && !k.endsWith('clock_ms'))
      .sort((a, b) => num(b[1]) - num(a[1]));
    for (const [k, v] of rows) {
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
  // A range's PM samples (--set triage): their count and span, then per
  // range metric a line chart of its value in each sample over the time
  // from the range's first sample (ms), each value held until the next
  // sample starts and the last until it ends.
  const drawSamples = (sec, r) => {
    const samples = r.samples || [];
    if (!samples.length) return;
    const first = samples.reduce((v, s) => Math.min(v, num(s.start_ms)), Infinity);
    const last = samples.reduce((v, s) => Math.max(v, num(s.end_ms)), -Infinity);
    add(sec, el('p', {class: 'samples'}, `${samples.length} points of PM sampling over ${(last - first).toFixed(3)} ms; the charts show each metric's value per point`));
    if (!charts) return;
    const box = add(sec, el('div', {class: 'charts'}));
    (r.range_metrics || []).forEach((m, i) => {
      const data = samples.map(s => ({x: num(s.start_ms), y: num(s.values[i])}));
      data.push({x: num(samples[samples.length - 1].end_ms), y: num(samples[samples.length - 1].values[i])});
      chart(box, 'chart', {type: 'line', data: {datasets: [{label: m.unit ? `${m.name} (${m.unit})` : m.name, data, stepped: 'after',
        borderColor: colors[i % colors.length], backgroundColor: colors[i % colors.length], pointRadius: samples.length > 100 ? 0 : 2}]},
        options: {parsing: false, plugins: {title: {display: true, text: `${m.name} per point`}},
          scales: {x: {type: 'linear', title: {display: true, text: 'ms from the range\'s start'}}, y: {title: {display: true, text: m.unit || 'value'}}}}});
      check.sample_charts++;
    });
  };

  // Numbers on log axes: 1, 10, 100 ... and 0.1, 0.01 written out, with SI
  // prefixes from 1e3, never as "10,000,000,000,000".
  const logTick = v => {
    const e = Math.round(Math.log10(v));
    if (Math.abs(Math.log10(v) - e) > 1e-6) return '';
    if (e >= 3) { const p = ['k', 'M', 'G', 'T', 'P']; const i = Math.min(Math.floor(e / 3), 5); return (v / Math.pow(1000, i)).toString() + p[i - 1]; }
    return e >= 0 ? String(v) : v.toFixed(-e);
  };
  const sig = v => +num(v).toPrecision(3);
  // Draws each ceiling's label by its line (a dataset's `ceiling` text at its
  // `labelAt` point).
  const ceilingLabels = {id: 'rrCeilingLabels', afterDatasetsDraw(c) {
    const ctx = c.ctx; ctx.save(); ctx.font = '11px system-ui,sans-serif';
    c.data.datasets.forEach((d, i) => {
      if (!d.ceiling || !c.isDatasetVisible(i)) return;
      const x = c.scales.x.getPixelForValue(d.labelAt.x), y = c.scales.y.getPixelForValue(d.labelAt.y);
      ctx.fillStyle = d.borderColor; ctx.textAlign = d.labelAlign || 'right'; ctx.fillText(d.ceiling, x, y - 4);
    });
    ctx.restore();
  }};
  // The range's roofline (ranges[i].roofline of the report, see roofline.h),
  // and beside or below it the band of kernels without floating-point work,
  // placed by their achieved DRAM bandwidth against the DRAM peak. `g`: the
  // range's kernel groups, for short names.
  const drawRoofline = (sec, box, r, roof, g) => {
    if (!roof) return;
    if (!roof.available) {
      add(sec, el('p', {class: 'note'}, `No roofline: the report lacks ${roof.missing_metrics.join(', ')} (profile with --set full, which has them).`));
      return;
    }
    const missingPeaks = roof.missing_metrics.filter(n => n.endsWith('.peak_sustained'));
    const missingCounts = roof.missing_metrics.filter(n => !n.endsWith('.peak_sustained'));
    if (roof.not_counted.length) add(sec, el('p', {class: 'note'}, `FLOPs not counted for ${roof.not_counted.join(', ')}: the report lacks ${missingCounts.join(', ')}.`));
    if (missingPeaks.length) add(sec, el('p', {class: 'note'}, `No ceiling for: ${missingPeaks.join(', ')} (the report lacks them).`));
    const byK = new Map(r.kernels.map(k => [k.index, k]));
    const shortOf = new Map();
    for (const x of (g ? g.groups : [])) for (const i of x.kernels) shortOf.set(i, x.name);
    const withDuration = roof.kernels_with_duration;
    const share = withDuration ? ` (${(100 * roof.kernels_on_chart / withDuration).toFixed(1)}%)` : '';
    add(sec, el('p', {class: 'roof-summary'}, (roof.kernels.length ? `Roofline: ${roof.kernels_on_chart} of ${withDuration} kernels with a duration on the chart${share}: ` +
      `${roof.kernels_on_roofline} on the roofline, ${roof.kernels_in_band} in the band "no floating-point work"` : 'Roofline of whole-range values') +
      `; whole range ${sig(roof.whole.tflop_per_s)} TFLOP/s at ${sig(roof.whole.dram_flop_per_byte)} FLOP/byte (DRAM), ` +
      `${sig(num(roof.whole.dram_byte_per_s) / 1e12)} TB/s DRAM (${num(roof.whole.dram_pct_of_peak).toFixed(1)}% of peak).`));
    const nb = roof.kernels_in_band, one = nb === 1;
    if (nb) add(sec, el('p', {class: 'note band-note'}, `No floating-point work: ${nb} kernel${one ? '' : 's'} (such as fills, copies, sorts, gathers) execute${one ? 's' : ''} no ` +
      `floating-point instruction, so ${one ? 'it has' : 'they have'} no arithmetic intensity and no place on the roofline; ` +
      'the band places each by its achieved DRAM ' +
      'bandwidth (DRAM bytes over its duration) against the DRAM peak, with its duration upward. At 60% of the peak or more a kernel is bound by ' +
      'DRAM bandwidth; far below it, by latency or launch overhead (a short kernel) or by traffic that stays in L2.'));
    // Kernels off the chart, by reason, each named and linked to its block.
    const offBy = {};
    for (const p of roof.kernels) if (p.off && !p.in_band) (offBy[p.off] = offBy[p.off] || []).push(p.kernel_index);
    for (const [why, list] of Object.entries(offBy)) {
      const line = add(sec, el('p', {class: 'note off-chart'}, `Not on the chart: ${list.length} kernel${list.length === 1 ? '' : 's'} with ${why}` +
        ' (a log scale has no place for 0): '));
      list.slice(0, 20).forEach((i, n) => {
        if (n) add(line, document.createTextNode(', '));
        const k = byK.get(i) || {};
        add(line, el('a', {href: '#' + kernelId(r, i), title: k.name || k.mangled_name || ''}, `#${i} ${shortOf.get(i) || k.name || k.mangled_name || 'kernel'}`));
      });
      if (list.length > 20) add(line, document.createTextNode(` and ${list.length - 20} more`));
    }
    const ceil = add(sec, el('table', {class: 'ceilings'}));
    const hr = add(ceil, el('tr')); add(hr, el('th', {class: 'l'}, 'ceiling')); add(hr, el('th', {}, 'peak'));
    for (const c of roof.compute_ceilings) { const tr = add(ceil, el('tr')); add(tr, el('td', {class: 'l'}, c.label)); add(tr, el('td', {}, `${sig(c.tflop_per_s)} TFLOP/s`)); }
    for (const c of roof.memory_ceilings) { const tr = add(ceil, el('tr')); add(tr, el('td', {class: 'l'}, `${c.label} bandwidth`)); add(tr, el('td', {}, `${sig(c.tbyte_per_s)} TB/s`)); }
    if (!charts) return;
    drawRoofChart(box, r, roof, byK);
    drawBand(box, roof, byK, shortOf);
  };
  const drawRoofChart = (box, r, roof, byK) => {
    const on = p => p.off === '';
    const kpts = roof.kernels.filter(on);
    const xs = kpts.flatMap(p => [p.dram_flop_per_byte, p.l2_flop_per_byte]).concat([roof.whole.dram_flop_per_byte]).filter(x => x > 0);
    const ys = kpts.map(p => p.tflop_per_s).concat(roof.compute_ceilings.map(c => c.tflop_per_s)).filter(y => y > 0);
    const bwMin = Math.min(...roof.memory_ceilings.map(c => c.tbyte_per_s).filter(b => b > 0));
    for (const c of roof.compute_ceilings) for (const m of roof.memory_ceilings) if (m.tbyte_per_s > 0) xs.push(c.tflop_per_s / m.tbyte_per_s);
    const xMin = Math.pow(10, Math.floor(Math.log10(Math.min(...xs, 1)))), xMax = Math.pow(10, Math.ceil(Math.log10(Math.max(...xs, 10))));
    if (roof.whole.tflop_per_s > 0) ys.push(roof.whole.tflop_per_s);
    if (!ys.length) return;
    const yMax = Math.pow(10, Math.ceil(Math.log10(Math.max(...ys) * 1.5)));
    const yMin = Math.pow(10, Math.floor(Math.log10(Math.min(...ys, bwMin * xMin))));
    const top = Math.max(...roof.compute_ceilings.map(c => c.tflop_per_s), 0);
    const palette = ['#6a3d9a', '#ff7f00', '#b15928', '#e31a1c', '#fb9a99', '#cab2d6', '#fdbf6f', '#a6cee3'];
    const sets = [];
    for (const [i, m] of roof.memory_ceilings.entries()) {
      if (!(m.tbyte_per_s > 0)) continue;
      const ridge = top > 0 ? top / m.tbyte_per_s : xMax;
      const color = m.key === 'dram' ? '#1f78b4' : '#33a02c';
      sets.push({label: `${m.label} ${sig(m.tbyte_per_s)} TB/s`, data: [{x: xMin, y: m.tbyte_per_s * xMin}, {x: ridge, y: m.tbyte_per_s * ridge}], showLine: true, pointRadius: 0,
        borderColor: color, borderWidth: 1.5, ceiling: `${m.label} ${sig(m.tbyte_per_s)} TB/s`, labelAt: {x: Math.sqrt(xMin * ridge) * (i ? 1 : 0.6), y: m.tbyte_per_s * Math.sqrt(xMin * ridge) * (i ? 1 : 0.6)}, labelAlign: 'center'});
    }
    roof.compute_ceilings.forEach((c, i) => {
      const start = c.tflop_per_s / Math.max(...roof.memory_ceilings.map(m => m.tbyte_per_s));
      sets.push({label: `${c.label} peak ${sig(c.tflop_per_s)} TFLOP/s`, data: [{x: Math.max(start, xMin), y: c.tflop_per_s}, {x: xMax, y: c.tflop_per_s}], showLine: true, pointRadius: 0,
        borderColor: palette[i % palette.length], borderWidth: 1.5, borderDash: [6, 3], ceiling: `${c.label} ${sig(c.tflop_per_s)} TFLOP/s`, labelAt: {x: xMax, y: c.tflop_per_s}});
    });
    const named = p => ({name: (byK.get(p.kernel_index) || {}).name || `kernel ${p.kernel_index}`, kinds: p.flop_by_kind});
    sets.push({label: 'kernels (DRAM bytes)', data: kpts.map(p => Object.assign({x: p.dram_flop_per_byte, y: p.tflop_per_s}, named(p))), backgroundColor: '#1f78b4'});
    sets.push({label: 'kernels (L2 bytes)', data: kpts.filter(p => p.l2_flop_per_byte > 0).map(p => Object.assign({x: p.l2_flop_per_byte, y: p.tflop_per_s}, named(p))), backgroundColor: '#33a02c', hidden: true});
    if (on(roof.whole)) sets.push({label: 'whole range (DRAM bytes)', data: [{x: roof.whole.dram_flop_per_byte, y: roof.whole.tflop_per_s, name: 'whole range', kinds: roof.whole.flop_by_kind}], backgroundColor: '#e31a1c', pointRadius: 7, pointStyle: 'rectRot'});
    chart(box, 'roof', {type: 'scatter', data: {datasets: sets}, plugins: [ceilingLabels],
      options: {plugins: {title: {display: true, text: 'Roofline: performance [TFLOP/s] against arithmetic intensity [FLOP/byte]'},
        tooltip: {callbacks: {label: ctx => { const d = ctx.raw; if (!d.name) return ctx.dataset.label;
          const kinds = Object.entries(d.kinds || {}).map(([k, f]) => `${k} ${sig(f / 1e9)} GFLOP`).join(', ');
          return `${d.name}: ${sig(d.y)} TFLOP/s at ${sig(d.x)} FLOP/byte (${kinds})`; }}}},
        scales: {x: {type: 'logarithmic', min: xMin, max: xMax, title: {display: true, text: 'arithmetic intensity [FLOP/byte]'}, ticks: {callback: logTick}},
                 y: {type: 'logarithmic', min: yMin, max: yMax, title: {display: true, text: 'performance [TFLOP/s]'}, ticks: {callback: logTick}}}}});
    check.roofline_points += kpts.length;
  };
  // The band of kernels without floating-point work: achieved DRAM bandwidth
  // (TB/s, log) across, duration (us, log) upward, the DRAM peak and 60% of
  // it as lines.
  const drawBand = (box, roof, byK, shortOf) => {
    const pts = roof.kernels.filter(p => p.in_band);
    const whole = roof.whole.in_band ? [roof.whole] : [];
    if (!pts.length && !whole.length) return;
    const peak = (roof.memory_ceilings.find(c => c.key === 'dram') || {}).tbyte_per_s || 0;
    const tb = p => num(p.dram_byte_per_s) / 1e12;
    const xs = pts.concat(whole).map(tb).filter(x => x > 0);
    const ys = pts.concat(whole).map(p => num(p.duration_ns) / 1e3).filter(y => y > 0);
    const xMin = Math.pow(10, Math.floor(Math.log10(Math.min(...xs)))), xMax = Math.pow(10, Math.ceil(Math.log10(Math.max(...xs, peak) * 1.2)));
    const yMin = Math.pow(10, Math.floor(Math.log10(Math.min(...ys)))), yMax = Math.pow(10, Math.ceil(Math.log10(Math.max(...ys) * 1.5)));
    const point = (p, name, full) => ({x: tb(p), y: num(p.duration_ns) / 1e3, name, full, pct: num(p.dram_pct_of_peak), bytes: num(p.dram_bytes)});
    const sets = [];
    if (peak > 0) {
      for (const [f, label, dash] of [[1, `DRAM peak ${sig(peak)} TB/s`, []], [0.6, '60% of peak', [6, 3]]]) {
        sets.push({label, data: [{x: peak * f, y: yMin}, {x: peak * f, y: yMax}], showLine: true, pointRadius: 0, borderColor: f === 1 ? '#1f78b4' : '#a6cee3',
          borderWidth: 1.5, borderDash: dash, ceiling: label, labelAt: {x: peak * f, y: f === 1 ? yMax / 2 : Math.sqrt(yMin * yMax)}, labelAlign: 'right'});
      }
    }
    sets.push({label: 'kernels without floating-point work', data: pts.map(p => { const k = byK.get(p.kernel_index) || {};
      return point(p, `#${p.kernel_index} ${shortOf.get(p.kernel_index) || k.name || k.mangled_name || 'kernel'}`, k.name || k.mangled_name); }), backgroundColor: '#ff7f00'});
    if (whole.length) sets.push({label: 'whole range', data: [point(roof.whole, 'whole range')], backgroundColor: '#e31a1c', pointRadius: 7, pointStyle: 'rectRot'});
    chart(box, 'band', {type: 'scatter', data: {datasets: sets}, plugins: [ceilingLabels],
      options: {plugins: {title: {display: true, text: 'No floating-point work: achieved DRAM bandwidth [TB/s] against the DRAM peak'},
        tooltip: {callbacks: {label: ctx => { const d = ctx.raw; if (!d.name) return ctx.dataset.label;
          return `${d.name}: ${sig(d.x)} TB/s DRAM (${d.pct.toFixed(1)}% of peak), ${bytes(d.bytes)} in ${dur(d.y * 1e3)}`; }}}},
        scales: {x: {type: 'logarithmic', min: xMin, max: xMax, title: {display: true, text: 'achieved DRAM bandwidth [TB/s]'}, ticks: {callback: logTick}},
                 y: {type: 'logarithmic', min: yMin, max: yMax, title: {display: true, text: 'duration [\u00b5s]'}, ticks: {callback: logTick}}}}});
    check.band_points += pts.length;
  };

  // A kernel's block: its metrics with units, written when first opened (a
  // training step has hundreds of kernels of hundreds of metrics).
  const fillKernel = (d, k) => {
    if (d.dataset.filled) return;
    d.dataset.filled = '1';
    // Nsight Compute's sections (report/kernel_sections.h), then the
    // guidance's findings, then every metric.
    for (const s of sectionsOf[d.id] || []) {
      add(d, el('h4', {class: 'section'}, s.title));
      const st = add(d, el('table', {class: 'kernel-section'}));
      let group = '';
      for (const [g, label, value, unit] of s.rows) {
        if (g !== group) { group = g; add(add(st, el('tr')), el('th', {class: 'l', colspan: '3'}, g)); }
        const tr = add(st, el('tr')); add(tr, el('td', {class: 'l'}, label)); add(tr, el('td', {}, value)); add(tr, el('td', {class: 'l'}, unit));
      }
      check.section_tables++;
    }
    if ((k.guidance || []).length) {
      add(d, el('h4', {class: 'section'}, 'Guidance'));
      const ul = add(d, el('ul', {class: 'guidance'}));
      for (const f of k.guidance) {
        const li = add(ul, el('li'));
        add(li, el('b', {}, f.title + ': '));
        add(li, document.createTextNode(f.detail + ' ' + f.advice));
        check.findings++;
      }
    }
    add(d, el('h4', {class: 'section'}, 'Every metric'));
    const t = add(d, el('table', {class: 'kernel-metrics'}));
    const h = add(t, el('tr')); add(h, el('th', {class: 'l'}, 'metric')); add(h, el('th', {}, 'value')); add(h, el('th', {class: 'l'}, 'unit'));
    add(d, el('p', {class: 'note'}, `${k.name || k.mangled_name}; grid (${k.grid.join(',')}), block (${k.block.join(',')}), ${k.metrics.length} metrics`));
    for (const m of k.metrics) {
      const tr = add(t, el('tr')); add(tr, el('td', {class: 'l'}, m.name)); add(tr, el('td', {}, withUnit(m.value, m.unit))); add(tr, el('td', {class: 'l'}, m.unit));
    }
  };
  // Kernel block ids: the kernel and the function that writes its range's blocks.
  const kernelBlocks = new Map();
  // Opens the kernel block (#rr-r<range>-k<kernel>) or the group
  // (#rr-r<range>-g<n>, n from 0 in the table's order) a link names.
  const openHash = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = kernelBlocks.get(id);
    if (target) target.write();
    const d = document.getElementById(id);
    if (d && target) {
      fillKernel(d, target.k);
      d.parentElement.open = true;
      d.open = true;
      d.scrollIntoView();
      check.opened_kernel = d.id;
    } else if (d && d.classList.contains('group')) {
      const row = d.querySelector('tr.group-row');
      if (row.getAttribute('aria-expanded') !== 'true') row.click();
      d.scrollIntoView();
      check.opened_group = d.id;
      check.opened_group_links = Array.from(d.querySelectorAll('tr.member:not([hidden]) a'))
        .filter(a => kernelBlocks.has(a.getAttribute('href').slice(1))).length;
    }
  };
  window.addEventListener('hashchange', openHash);

  // The range's kernels grouped by short name (report/kernel_groups.h),
  // largest total time first; a group's row opens its kernels, each linked to
  // its block. Further per-group columns go into `columns`.
  const drawGroups = (sec, r, g) => {
    if (!g || !g.groups.length) return;
    const withDuration = g.groups.reduce((s, x) => s + x.kernels_with_duration, 0);
    add(sec, el('p', {class: 'groups-summary'}, `${r.kernels.length} kernels in ${g.groups.length} groups by short name` +
      (withDuration ? `; kernel time ${dur(g.total_ns)} (${withDuration} kernels with a duration)` : '; no kernel has a duration (whole-range values)') +
      '. Click a group for its kernels, a kernel for its metrics; hover a name for the full names.'));
    const byK = new Map(r.kernels.map(k => [k.index, k]));
    const metricOfK = (k, name) => { const m = (k.metrics || []).find(x => x.name === name); return m ? m : undefined; };
    const columns = [
      ['kernels', x => String(x.kernels.length), k => ''],
      ['time', x => x.kernels_with_duration ? dur(x.total_ns) : '', k => { const m = metricOfK(k, 'gpu__time_duration.sum'); return m ? withUnit(m.value, m.unit) : ''; }],
      ['share %', x => g.total_ns > 0 ? x.share_pct.toFixed(1) : '', k => { const m = metricOfK(k, 'gpu__time_duration.sum'); return m && g.total_ns > 0 && nsPer[m.unit] ? (100 * num(m.value) * nsPer[m.unit] / g.total_ns).toFixed(1) : ''; }],
      ['SOL memory %', x => pct(x.sol_memory_pct), k => { const m = metricOfK(k, 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'); return m ? pct(m.value) : ''; }],
      ['SOL compute %', x => pct(x.sol_compute_pct), k => { const m = metricOfK(k, 'sm__throughput.avg.pct_of_peak_sustained_elapsed'); return m ? pct(m.value) : ''; }],
      ['bottleneck', x => x.bottleneck, (k, x, i) => x.member_bottlenecks[i]],
      ['top stall', x => x.top_stall, (k, x, i) => x.member_top_stalls[i]],
    ];
    const t = add(sec, el('table', {class: 'groups'}));
    const head = add(add(t, el('thead')), el('tr'));
    add(head, el('th', {class: 'l'}, 'group (short name)'));
    for (const [label] of columns) add(head, el('th', {}, label));
    for (const [n, x] of g.groups.entries()) {
      const body = add(t, el('tbody', {class: 'group', id: `rr-r${r.index}-g${n}`}));
      const tr = add(body, el('tr', {class: 'group-row', 'aria-expanded': 'false'}));
      const name = add(tr, el('td', {class: 'l name', title: x.full_names.join('\n')}));
      add(name, el('span', {class: 'toggle'}, '\u25b8 '));
      add(name, el('span', {class: 'short'}, x.name));
      if (x.full_names.length > 1) add(name, el('span', {class: 'note'}, ` (${x.full_names.length} names)`));
      for (const [, value] of columns) add(tr, el('td', {}, value(x)));
      let members = null;
      tr.addEventListener('click', () => {
        const open = tr.getAttribute('aria-expanded') !== 'true';
        tr.setAttribute('aria-expanded', String(open));
        tr.firstChild.firstChild.textContent = open ? '\u25be ' : '\u25b8 ';
        if (!members) {
          members = x.kernels.map((i, member) => {
            const k = byK.get(i) || {index: i, name: `kernel ${i}`, metrics: [], grid: [], block: []};
            const mr = add(body, el('tr', {class: 'member'}));
            const cell = add(mr, el('td', {class: 'l name', title: k.name || k.mangled_name}));
            add(cell, el('a', {href: '#' + kernelId(r, i)}, `#${i}`));
            add(cell, document.createTextNode(' ' + (k.name || k.mangled_name)));
            for (const [, , value] of columns) add(mr, el('td', {}, value(k, x, member)));
            return mr;
          });
        }
        for (const mr of members) mr.hidden = !open;
      });
      check.group_rows++;
    }
    check.first_groups.push(g.groups[0].name);
  };

  for (const [ri, r] of report.ranges.entries()) {
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
    const names = new Set((r.kernels[0] || {metrics: []}).metrics.map(m => m.name).concat((r.range_metrics || []).map(m => m.name)));
    drawRoofline(sec, box, r, r.roofline, groupsOf[ri]);
    drawGroups(sec, r, groupsOf[ri]);
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
    drawSamples(sec, r);
    if (r.kernels.length) {
      const t = add(sec, el('table', {class: 'kernels'}));
      const head = add(t, el('tr'));
      const labels = ['#', 'kernel', 'grid', 'block'].concat(cols);
      const rows = r.kernels.map(k => [k.index, k.name || k.mangled_name, `(${k.grid.join(',')})`, `(${k.block.join(',')})`].concat(cols.map(c => metricOf(k.metrics, c))));
      const body = add(t, el('tbody'));
      const fill = () => {
        body.textContent = '';
        for (const row of rows) {
          const tr = add(body, el('tr'));
          row.forEach((v, i) => {
            const td = add(tr, el('td', {class: i === 1 ? 'l name' : ''}, i === 0 ? undefined : i >= 4 ? (v === undefined ? '' : fmt(v)) : String(v)));
            if (i === 0) add(td, el('a', {href: '#' + kernelId(r, v)}, String(v)));
            if (i === 1) td.title = String(v);
          });
        }
      };
      labels.forEach((label, i) => {
        const th = add(head, el('th', {class: i === 1 ? 'l' : ''}, label));
        let up = true;
        th.addEventListener('click', () => { rows.sort((a, b) => (typeof a[i] === 'number' ? a[i] - b[i] : String(a[i]).localeCompare(String(b[i]))) * (up ? 1 : -1)); up = !up; fill(); });
      });
      fill();
      check.kernel_rows += rows.length;
    }
    // Each kernel's block, the target of the links above: its metrics with
    // units. Written when the list is first opened or a link names one of
    // its kernels, so hundreds of kernels cost nothing until then.
    if (r.kernels.length) {
      const blocks = add(sec, el('details', {class: 'kernel-blocks'}));
      add(blocks, el('summary', {}, `kernels: metrics (${r.kernels.length} blocks; a kernel's link opens its block)`));
      let written = false;
      const write = () => {
        if (written) return;
        written = true;
        for (const k of r.kernels) {
          const d = add(blocks, el('details', {class: 'kernel', id: kernelId(r, k.index)}));
          const m = (k.metrics || []).find(x => x.name === 'gpu__time_duration.sum');
          add(d, el('summary', {}, `#${k.index} ${k.name || k.mangled_name}` + (m ? ` (${withUnit(m.value, m.unit)})` : '')));
          d.addEventListener('toggle', () => { if (d.open) fillKernel(d, k); });
        }
      };
      blocks.addEventListener('toggle', () => { if (blocks.open) write(); });
      for (const k of r.kernels) kernelBlocks.set(kernelId(r, k.index), {k, write});
      check.kernel_blocks += r.kernels.length;
      const g = groupsOf[ri];
      for (const x of (g ? g.groups : [])) for (const i of x.kernels) if (!kernelBlocks.has(kernelId(r, i))) check.group_kernels_without_block++;
    }
  }
  openHash();
  check.canvases_drawn = canvases.filter(drawn).length;
  document.getElementById('rr-check').textContent = JSON.stringify(check);
})();
)js";

// Per range (in the report's order) its kernel groups (kernel_groups.h), for
// the page's group table: {"total_ns", "groups": [{"name", "full_names",
// "kernels" (KernelRecord::index), "kernels_with_duration", "total_ns",
// "share_pct", "sol_memory_pct", "sol_compute_pct" (null: no value),
// "bottleneck", "top_stall" ("": none), "member_bottlenecks",
// "member_top_stalls" (per member, in "kernels"' order)}]}.
// Declined ranges get no groups.
std::string groups_json(const Report& report) {
  nlohmann::json ranges = nlohmann::json::array();
  for (const RangeRecord& range : report.ranges) {
    nlohmann::json groups = nlohmann::json::array();
    double total_ns = 0;
    if (!range.declined) {
      KernelGroups g = group_kernels(range);
      total_ns = g.total_ns;
      for (KernelGroup& k : g.groups) {
        const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
        groups.push_back({{"name", std::move(k.short_name)},
                          {"full_names", std::move(k.full_names)},
                          {"kernels", std::move(k.kernel_indices)},
                          {"kernels_with_duration", k.kernels_with_duration},
                          {"total_ns", k.total_ns},
                          {"share_pct", k.share_pct},
                          {"sol_memory_pct", opt(k.sol_memory_pct)},
                          {"sol_compute_pct", opt(k.sol_compute_pct)},
                          {"bottleneck", std::move(k.bottleneck)},
                          {"top_stall", std::move(k.top_stall)},
                          {"member_bottlenecks", std::move(k.member_bottlenecks)},
                          {"member_top_stalls", std::move(k.member_top_stalls)}});
      }
    }
    ranges.push_back({{"total_ns", total_ns}, {"groups", std::move(groups)}});
  }
  // Names are not valid UTF-8 in every report: replace what is not.
  return ranges.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Per kernel block id ("rr-r<range>-k<kernel>"), the kernel's sections
// (kernel_sections.h) for its block: [{"title", "rows": [[group, label,
// value, unit]]}]. Kernels without a section are left out.
std::string sections_json(const Report& report) {
  nlohmann::json blocks = nlohmann::json::object();
  for (const RangeRecord& range : report.ranges) {
    for (const KernelRecord& k : range.kernels) {
      nlohmann::json sections = nlohmann::json::array();
      for (const KernelSection& s : kernel_sections(k)) {
        nlohmann::json rows = nlohmann::json::array();
        for (const SectionRow& row : s.rows) rows.push_back({row.group, row.label, row.value, row.unit});
        sections.push_back({{"title", s.title}, {"rows", std::move(rows)}});
      }
      if (!sections.empty())
        blocks["rr-r" + std::to_string(range.index) + "-k" + std::to_string(k.index)] = std::move(sections);
    }
  }
  return blocks.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

StatusOr<std::string> render_report_html(const Report& report, std::string_view chart_js) {
  RR_ASSIGN_OR_RETURN(std::string json, dump_report_json(report, -1));
  std::string page(kHead);
  if (!chart_js.empty()) page += "<script>" + script_safe(chart_js) + "</script>\n";
  page += "</head><body>\n<div id=\"rr-root\"></div>\n<pre id=\"rr-check\" hidden></pre>\n";
  page += "<script type=\"application/json\" id=\"rr-data\">" + json_in_script(json) + "</script>\n";
  std::string groups, sections;
  try {
    groups = groups_json(report);
    sections = sections_json(report);
  } catch (const std::bad_alloc&) {
    return resource_exhausted("out of memory while writing the report's kernel groups and sections");
  } catch (const std::exception& e) {
    return internal_error(std::string("cannot write the report's kernel groups and sections: ") + e.what());
  }
  page += "<script type=\"application/json\" id=\"rr-groups\">" + json_in_script(groups) + "</script>\n";
  page += "<script type=\"application/json\" id=\"rr-sections\">" + json_in_script(sections) + "</script>\n";
  page += "<script>" + std::string(kPageScript) + "</script>\n</body></html>\n";
  return page;
}

Status write_report_html(const Report& report, std::string_view chart_js, const std::filesystem::path& path) {
  RR_ASSIGN_OR_RETURN(std::string page, render_report_html(report, chart_js));
  return write_text_file(path, page);
}

}  // namespace rangereplay::report
