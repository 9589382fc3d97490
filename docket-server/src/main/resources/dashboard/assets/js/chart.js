// A small time-series chart drawn as SVG: one or more lines over a fixed time window, a shaded
// area under the first, horizontal grid lines with labels, and a hover read-out. Colours and
// strokes come from CSS classes (no inline styles: the CSP forbids them).

import { svg, replace } from './dom.js';

const W = 640;
const H = 200;
const M = { left: 46, right: 14, top: 14, bottom: 26 };
const PLOT_W = W - M.left - M.right;
const PLOT_H = H - M.top - M.bottom;

/** The smallest step of 1, 2 or 5 times a power of ten (at least 1) at or above x. */
function niceStep(x) {
  if (x <= 1) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  for (const m of [1, 2, 5, 10]) {
    if (m * p >= x) return m * p;
  }
  return 10 * p;
}

/** Minutes between the labels of the time axis, per window length in minutes. */
const X_TICK_MINUTES = { 5: 1, 15: 5, 30: 10, 60: 15 };

export class TimeChart {
  /**
   * @param container   element the chart goes into
   * @param options     {windowMs, maxGapMs, format(v) for labels, label: aria label, empty: text}
   */
  constructor(container, options) {
    this.options = { windowMs: 3600_000, maxGapMs: 30_000, format: String, empty: 'No data yet', ...options };
    this.series = [];
    this.now = Date.now();
    this.hoverX = null;
    this.root = svg('svg', {
      viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': this.options.label || 'chart',
      preserveAspectRatio: 'xMidYMid meet',
    });
    this.grid = svg('g', { class: 'chart-grid' });
    this.plot = svg('g', { class: 'chart-plot' });
    this.hover = svg('g', { class: 'chart-hover' });
    const overlay = svg('rect', {
      x: M.left, y: M.top, width: PLOT_W, height: PLOT_H, class: 'chart-overlay',
    });
    overlay.addEventListener('mousemove', (e) => {
      const box = this.root.getBoundingClientRect();
      this.hoverX = ((e.clientX - box.left) / box.width) * W;
      this.drawHover();
    });
    overlay.addEventListener('mouseleave', () => {
      this.hoverX = null;
      this.drawHover();
    });
    this.root.append(this.grid, this.plot, this.hover, overlay);
    container.appendChild(this.root);
  }

  /** Shows the last windowMs milliseconds from the next update on. */
  setWindow(windowMs) {
    this.options.windowMs = windowMs;
  }

  /** series: [{name, className, points: [{t: epoch ms, v: number}] sorted by t}] */
  update(series, now = Date.now()) {
    this.series = series;
    this.now = now;
    const from = now - this.options.windowMs;
    let max = 0;
    for (const s of series) {
      for (const p of s.points) if (p.t >= from && p.v > max) max = p.v;
    }
    const target = Math.max(max * 1.1, 4);
    this.yStep = niceStep(target / 4);
    this.yMax = Math.ceil(target / this.yStep) * this.yStep;
    this.drawGrid();
    this.drawPlot();
    this.drawHover();
  }

  x(t) {
    return M.left + ((t - (this.now - this.options.windowMs)) / this.options.windowMs) * PLOT_W;
  }

  y(v) {
    return M.top + PLOT_H - (v / this.yMax) * PLOT_H;
  }

  drawGrid() {
    const nodes = [];
    for (let v = 0; v <= this.yMax + 1e-9; v += this.yStep) {
      const y = this.y(v);
      nodes.push(svg('line', { x1: M.left, x2: W - M.right, y1: y, y2: y, class: v === 0 ? 'axis' : 'grid' }));
      nodes.push(svg('text', { x: M.left - 8, y: y + 4, class: 'tick tick-y', text: this.options.format(v) }));
    }
    const minutes = Math.round(this.options.windowMs / 60_000);
    const step = X_TICK_MINUTES[minutes] || Math.max(1, Math.round(minutes / 4));
    for (let m = minutes; m >= 0; m -= step) {
      const x = this.x(this.now - m * 60_000);
      nodes.push(svg('text', {
        x, y: H - 6, class: ['tick', m === minutes ? 'tick-start' : m === 0 ? 'tick-end' : 'tick-x'],
        text: m === 0 ? 'now' : '−' + m + ' min',
      }));
    }
    replace(this.grid, nodes);
  }

  /** Splits points into runs without gaps longer than maxGapMs, inside the window. */
  segments(points) {
    const from = this.now - this.options.windowMs;
    const runs = [];
    let run = [];
    let last = null;
    for (const p of points) {
      if (p.t < from - this.options.maxGapMs) continue;
      if (last !== null && p.t - last > this.options.maxGapMs) {
        if (run.length) runs.push(run);
        run = [];
      }
      run.push(p);
      last = p.t;
    }
    if (run.length) runs.push(run);
    return runs;
  }

  drawPlot() {
    const nodes = [];
    let any = false;
    this.series.forEach((s, index) => {
      for (const run of this.segments(s.points)) {
        any = true;
        const line = run.map((p, i) => (i ? 'L' : 'M') + this.x(p.t).toFixed(1) + ' ' + this.y(p.v).toFixed(1)).join(' ');
        if (index === 0) {
          const base = this.y(0).toFixed(1);
          const area = line + ` L${this.x(run[run.length - 1].t).toFixed(1)} ${base} L${this.x(run[0].t).toFixed(1)} ${base} Z`;
          nodes.push(svg('path', { d: area, class: ['area', s.className] }));
        }
        nodes.push(svg('path', { d: line, class: ['line', s.className] }));
        if (run.length === 1) {
          nodes.push(svg('circle', { cx: this.x(run[0].t), cy: this.y(run[0].v), r: 2.5, class: ['dot', s.className] }));
        }
      }
    });
    if (!any) {
      nodes.push(svg('text', { x: M.left + PLOT_W / 2, y: M.top + PLOT_H / 2, class: 'chart-empty', text: this.options.empty }));
    }
    // Clip the lines to the plot area: points just before the window start are kept for continuity.
    const clipId = this.clipId || (this.clipId = 'clip-' + Math.random().toString(36).slice(2));
    const clip = svg('clipPath', { id: clipId }, svg('rect', { x: M.left, y: 0, width: PLOT_W, height: H }));
    this.plot.setAttribute('clip-path', `url(#${clipId})`);
    replace(this.plot, clip, nodes);
  }

  drawHover() {
    replace(this.hover);
    if (this.hoverX === null || !this.series.length) return;
    const t = this.now - this.options.windowMs + ((this.hoverX - M.left) / PLOT_W) * this.options.windowMs;
    const first = this.series[0].points;
    if (!first.length) return;
    let best = first[0];
    for (const p of first) if (Math.abs(p.t - t) < Math.abs(best.t - t)) best = p;
    if (Math.abs(best.t - t) > this.options.maxGapMs) return;
    const x = this.x(best.t);
    const parts = this.series.map((s) => {
      const p = s.points.find((q) => q.t === best.t) || nearest(s.points, best.t);
      return (s.name ? s.name + ' ' : '') + (p ? this.options.format(p.v) : '—');
    });
    const ago = Math.round((this.now - best.t) / 1000);
    const label = parts.join(' · ') + ' · ' + (ago < 60 ? ago + ' s ago' : Math.round(ago / 60) + ' min ago');
    const text = svg('text', { x: 0, y: 0, class: 'hover-label', text: label });
    const box = svg('rect', { class: 'hover-box', rx: 4, ry: 4 });
    this.hover.append(
      svg('line', { x1: x, x2: x, y1: M.top, y2: M.top + PLOT_H, class: 'hover-line' }),
      svg('circle', { cx: x, cy: this.y(best.v), r: 3.5, class: ['hover-dot', this.series[0].className] }),
      box, text);
    const width = text.getComputedTextLength ? text.getComputedTextLength() : label.length * 6;
    const left = Math.min(Math.max(x - width / 2 - 6, M.left), W - M.right - width - 12);
    text.setAttribute('x', (left + 6).toFixed(1));
    text.setAttribute('y', (M.top + 14).toFixed(1));
    box.setAttribute('x', left.toFixed(1));
    box.setAttribute('y', (M.top + 1).toFixed(1));
    box.setAttribute('width', (width + 12).toFixed(1));
    box.setAttribute('height', '19');
  }
}

function nearest(points, t) {
  let best = null;
  for (const p of points) if (!best || Math.abs(p.t - t) < Math.abs(best.t - t)) best = p;
  return best;
}
