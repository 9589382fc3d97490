// Overview: the queues now (depth by state, lag, running, dead letters, pickup latency) and up to the
// last hour of throughput and failures (the window opens fitted to the data), polled every few seconds. The chart series live in this
// module for as long as the page is open; opening the overview also fetches the server's last
// hour, so the charts are full even right after a reload.

import { api } from './api.js';
import { h, svg, replace, num, dec, duration, millis, hashOf, note, actionButton } from './dom.js';
import { TimeChart } from './chart.js';
import { flashArea } from './widgets.js';
import { rateLimitSection } from './ratelimits.js';

const POLL_MS = 3000;
const WINDOW_MS = 3600_000;
const ALL = '';

/** Samples: {t: epoch ms (browser clock), queues: Map(queue -> {completed, failed})}, oldest first. */
let samples = [];
let chartQueue = ALL;
const WINDOWS = [[300_000, '5 min', 'Last 5 minutes'], [900_000, '15 min', 'Last 15 minutes'], [3600_000, '1 h', 'Last hour']];
let chartWindow = WINDOWS[0][0];
/** Whether someone picked a window here: then it stays, else each opening of the overview fits one to the data. */
let windowPicked = false;

/**
 * The window the charts open at: the smallest that reaches back to the first sample with a completion
 * or a failure (so a young cluster is not a thin line at the right of an empty hour), 5 min when no
 * sample has one, 1 h when the activity is older than that.
 */
export function fittingWindow(series, now) {
  const first = series.find((s) => [...s.queues.values()].some((q) => q.completed > 0 || q.failed > 0));
  const age = first ? now - first.t : 0;
  const fit = WINDOWS.find(([ms]) => ms >= age);
  return (fit || WINDOWS[WINDOWS.length - 1])[0];
}

function sampleOf(t, rows) {
  const queues = new Map();
  for (const r of rows) {
    const q = queues.get(r.queue) || { completed: 0, failed: 0 };
    q.completed += r.completedPerMinute || 0;
    q.failed += r.failedPerMinute || 0;
    queues.set(r.queue, q);
  }
  return { t, queues };
}

/** Merges the server's history with what this page collected: the server's samples win where both exist. */
function mergeHistory(history, now) {
  const server = history.samples.map((s) => sampleOf(now - s.secondsAgo * 1000, s.queues));
  if (!server.length) return;
  const first = server[0].t;
  const last = server[server.length - 1].t;
  const kept = samples.filter((s) => s.t < first || s.t > last);
  samples = kept.concat(server).sort((a, b) => a.t - b.t);
}

function addSample(sample) {
  samples.push(sample);
  const from = Date.now() - WINDOW_MS - 60_000;
  while (samples.length && samples[0].t < from) samples.shift();
}

function pointsOf(field) {
  return samples.map((s) => {
    let v = 0;
    if (chartQueue === ALL) {
      for (const q of s.queues.values()) v += q[field];
    } else {
      const q = s.queues.get(chartQueue);
      v = q ? q[field] : 0;
    }
    return { t: s.t, v };
  });
}

/**
 * Rows of /api/stats grouped by queue, with each queue's settings from /api/queues:
 * [{queue, settings, total, kinds: [rows]}], both sorted by name. A queue with settings but no jobs
 * is listed too (a paused, empty queue must still be resumable).
 */
function groupByQueue(rows, settings) {
  const byQueue = new Map();
  for (const r of rows) {
    if (!byQueue.has(r.queue)) byQueue.set(r.queue, []);
    byQueue.get(r.queue).push(r);
  }
  const bySettings = new Map(settings.map((q) => [q.name, q]));
  for (const q of bySettings.keys()) if (!byQueue.has(q)) byQueue.set(q, []);
  return [...byQueue.keys()].sort().map((queue) => {
    const kinds = byQueue.get(queue).sort((a, b) => a.kind.localeCompare(b.kind));
    return { queue, settings: bySettings.get(queue) || null, total: totals(kinds), kinds };
  });
}

function totals(rows) {
  const t = {
    scheduled: 0, ready: 0, running: 0, lagSeconds: 0, completedPerMinute: 0, failedPerMinute: 0,
    dead: 0, deadLast24h: 0, pickupP50Millis: null, pickupP99Millis: null,
  };
  for (const r of rows) {
    for (const k of ['scheduled', 'ready', 'running', 'completedPerMinute', 'failedPerMinute', 'dead', 'deadLast24h']) {
      t[k] += r[k] || 0;
    }
    t.lagSeconds = Math.max(t.lagSeconds, r.lagSeconds || 0);
    // Percentiles do not add up: a group shows the kind with the slowest median pickup, both its figures.
    if (r.pickupP50Millis !== null && r.pickupP50Millis !== undefined
        && (t.pickupP50Millis === null || r.pickupP50Millis > t.pickupP50Millis)) {
      t.pickupP50Millis = r.pickupP50Millis;
      t.pickupP99Millis = r.pickupP99Millis;
      t.slowest = r;
    }
  }
  return t;
}

function failureRate(t) {
  const attempts = t.completedPerMinute + t.failedPerMinute;
  return attempts ? (100 * t.failedPerMinute) / attempts : null;
}

function card(id, label, value, detail, tone) {
  return h('div', { class: ['card', 'metric', tone && 'tone-' + tone], id: 'metric-' + id },
    h('div', { class: 'metric-label', text: label }),
    h('div', { class: 'metric-value', data: { value: id }, text: value }),
    h('div', { class: 'metric-detail', text: detail }));
}

function renderCards(el, t) {
  const rate = failureRate(t);
  replace(el,
    card('ready', 'Ready', num(t.ready), t.ready ? 'oldest due ' + duration(t.lagSeconds) + ' ago' : 'nothing waiting',
      t.lagSeconds > 60 ? 'warn' : null),
    card('running', 'Running', num(t.running), 'claimed by workers now'),
    card('scheduled', 'Scheduled', num(t.scheduled), 'future or backing off'),
    card('throughput', 'Throughput', num(t.completedPerMinute), 'completed per minute, over the last minute'),
    card('failures', 'Failure rate', rate === null ? '—' : dec(rate) + ' %', num(t.failedPerMinute) + ' failed attempts / min',
      rate !== null && rate >= 5 ? 'bad' : null),
    card('dead', 'Dead letters', num(t.dead), '+' + num(t.deadLast24h) + ' in the last 24 h',
      t.deadLast24h > 0 ? 'bad' : null),
    pickupCard(t));
}

/** The overview's pickup latency: one kind's figures (the slowest median), named, as its table row shows them. */
function pickupCard(t) {
  const el = card('pickup', 'Pickup p50 · slowest kind', millis(t.pickupP50Millis), t.slowest
    ? t.slowest.kind + ' on ' + t.slowest.queue + ' · p99 ' + millis(t.pickupP99Millis) + ' · due to claimed'
    : 'no pickups in the last minute');
  if (t.slowest) {
    el.dataset.kind = t.slowest.kind;
    el.dataset.queue = t.slowest.queue;
  }
  return el;
}

const COLUMNS = [
  ['scheduled', 'Scheduled', (r) => num(r.scheduled)],
  ['ready', 'Ready', (r) => num(r.ready)],
  ['running', 'Running', (r) => num(r.running)],
  ['lag', 'Lag', (r) => (r.ready ? duration(r.lagSeconds) : '—')],
  ['completed', 'Done / min', (r) => num(r.completedPerMinute)],
  ['failed', 'Failed / min', (r) => num(r.failedPerMinute)],
  ['dead', 'Dead', (r) => num(r.dead)],
  ['dead24h', 'Dead 24 h', (r) => (r.deadLast24h ? '+' + num(r.deadLast24h) : '0')],
  ['p50', 'Pickup p50', (r) => millis(r.pickupP50Millis)],
  ['p99', 'Pickup p99', (r) => millis(r.pickupP99Millis)],
];

function cells(r) {
  return COLUMNS.map(([key, , value]) => h('td', {
    class: ['num', (key === 'dead' || key === 'dead24h') && r[key === 'dead' ? 'dead' : 'deadLast24h'] > 0 && 'bad',
      key === 'failed' && r.failedPerMinute > 0 && 'warn', (value(r) === '0' || value(r) === '—') && 'zero'],
    data: { col: key }, text: value(r),
    title: (key === 'p50' || key === 'p99') && r.slowest ? 'the slowest kind: ' + r.slowest.kind : null,
  }));
}

function renderTable(el, groups, session, onPause) {
  if (!groups.length) {
    replace(el, note('No jobs yet. Enqueue one with "docket enqueue --kind hello --payload {}" or POST /api/jobs.'));
    return;
  }
  const operate = session.canOperate;
  const body = [];
  for (const g of groups) {
    const paused = Boolean(g.settings && g.settings.paused);
    const caps = [];
    if (g.settings && g.settings.maxRunning !== null && g.settings.maxRunning !== undefined) {
      caps.push('max ' + num(g.settings.maxRunning) + ' running');
    }
    if (g.settings && g.settings.tenantMaxRunning !== null && g.settings.tenantMaxRunning !== undefined) {
      caps.push(num(g.settings.tenantMaxRunning) + ' per tenant');
    }
    body.push(h('tr', { class: ['queue-row', paused && 'paused'], data: { queue: g.queue, paused: String(paused) } },
      h('th', { scope: 'row', data: { col: 'name' } },
        h('a', { href: hashOf('jobs', { queue: g.queue }), text: g.queue, title: 'Jobs of queue ' + g.queue }),
        paused ? h('span', { class: 'badge paused-badge', text: 'paused' }) : null,
        caps.length ? h('span', { class: 'caps', text: caps.join(' · ') }) : null),
      cells(g.total),
      operate ? h('td', { class: 'row-actions' }, actionButton(paused ? 'Resume' : 'Pause',
        () => onPause(g.queue, !paused),
        { class: 'button small' + (paused ? ' primary' : ''), data: { [paused ? 'resume' : 'pause']: g.queue },
          title: paused ? 'Workers claim from ' + g.queue + ' again' : 'Workers stop claiming from ' + g.queue + '; running jobs finish' }))
        : null));
    for (const k of g.kinds) {
      body.push(h('tr', { class: 'kind-row', data: { queue: g.queue, kind: k.kind } },
        h('td', { data: { col: 'name' } },
          h('a', { href: hashOf('jobs', { queue: g.queue, kind: k.kind }), text: k.kind, title: 'Jobs of kind ' + k.kind })),
        cells(k),
        operate ? h('td', {}) : null));
    }
  }
  replace(el, h('div', { class: 'table-wrap' },
    h('table', { class: 'table queues', id: 'queues' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: 'Queue / kind' }),
        COLUMNS.map(([key, label]) => h('th', { scope: 'col', class: 'num', data: { col: key }, text: label })),
        operate ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: 'Actions' })) : null)),
      h('tbody', {}, body))));
}

/** Running jobs per queue and tenant (fairness at a glance); hidden while no running job has a tenant. */
function renderTenants(el, rows) {
  const withTenant = rows.filter((r) => r.tenant !== null && r.tenant !== undefined);
  if (!withTenant.length) {
    replace(el);
    return;
  }
  const sorted = rows.slice().sort((a, b) => a.queue.localeCompare(b.queue) || b.running - a.running);
  const max = Math.max(...sorted.map((r) => r.running), 1);
  replace(el,
    h('h2', { text: 'Running by tenant' }),
    h('div', { class: 'table-wrap' },
      h('table', { class: 'table tenants', id: 'tenants' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col', text: 'Queue' }),
          h('th', { scope: 'col', text: 'Tenant' }),
          h('th', { scope: 'col', class: 'num', text: 'Running' }),
          h('th', { scope: 'col', class: 'bar-col' }, h('span', { class: 'visually-hidden', text: 'Share' })))),
        h('tbody', {}, sorted.map((r) => h('tr', { data: { queue: r.queue, tenant: r.tenant === null ? '' : r.tenant } },
          h('td', { text: r.queue }),
          h('td', { class: r.tenant === null ? 'muted' : null, text: r.tenant === null ? 'no tenant' : r.tenant }),
          h('td', { class: 'num', text: num(r.running) }),
          h('td', { class: 'bar-col' },
            svg('svg', { class: 'bar', viewBox: '0 0 100 8', preserveAspectRatio: 'none', 'aria-hidden': 'true' },
              svg('rect', { x: 0, y: 0, width: 100, height: 8, rx: 2, class: 'bar-track' }),
              svg('rect', { x: 0, y: 0, width: Math.max(1, (100 * r.running) / max).toFixed(1), height: 8, rx: 2, class: 'bar-fill' })))))))));
}

export function renderOverview(main, route, session, ui) {
  let stopped = false;
  let timer = null;
  let lastOk = null;
  let queues = [];

  const cardsEl = h('div', { class: 'metrics', id: 'metrics' });
  const flash = flashArea();
  const tableEl = h('div', { id: 'queue-table' }, h('p', { class: 'loading', text: 'Loading…' }));
  const tenantsEl = h('section', { id: 'tenant-section' });
  const rateLimits = rateLimitSection(session, flash, () => poll());
  const updated = h('span', { class: 'updated', id: 'updated', text: 'connecting…' });
  const queueSelect = h('select', { id: 'chart-queue', 'aria-label': 'Queue shown in the charts' });
  queueSelect.addEventListener('change', () => {
    chartQueue = queueSelect.value;
    drawCharts();
  });
  const throughputBox = h('div', { class: 'chart-box' });
  const failuresBox = h('div', { class: 'chart-box' });
  const throughputNow = h('span', { class: 'chart-now', id: 'throughput-now' });
  const failuresNow = h('span', { class: 'chart-now', id: 'failures-now' });

  const chartsTitle = h('h2', {});
  const windowButtons = WINDOWS.map(([ms, label]) => h('button', {
    type: 'button', class: 'segment', data: { window: ms }, text: label,
    on: {
      click: () => {
        chartWindow = ms;
        windowPicked = true;
        showWindow();
        drawCharts();
      },
    },
  }));

  replace(main,
    h('div', { class: 'page-head' },
      h('h1', { text: 'Overview' }),
      h('div', { class: 'live' }, h('span', { class: 'live-dot', 'aria-hidden': 'true' }), updated)),
    flash,
    cardsEl,
    h('section', { class: 'charts' },
      h('div', { class: 'charts-head' },
        chartsTitle,
        h('div', { class: 'chart-controls' },
          h('div', { class: 'segmented', role: 'group', 'aria-label': 'Time window' }, windowButtons),
          h('label', { class: 'inline' }, 'Queue ', queueSelect))),
      h('div', { class: 'chart-grid' },
        h('div', { class: 'card chart-card', id: 'chart-throughput' },
          h('div', { class: 'chart-title' }, h('h3', { text: 'Throughput' }), h('span', { class: 'muted', text: 'completed / min' }), throughputNow),
          throughputBox),
        h('div', { class: 'card chart-card', id: 'chart-failures' },
          h('div', { class: 'chart-title' }, h('h3', { text: 'Failures' }), h('span', { class: 'muted', text: 'failed attempts / min' }), failuresNow),
          failuresBox))),
    h('section', {},
      h('h2', { text: 'Queues' }),
      tableEl),
    rateLimits.el,
    tenantsEl);

  function showWindow() {
    const [, , title] = WINDOWS.find(([ms]) => ms === chartWindow);
    chartsTitle.textContent = title;
    for (const b of windowButtons) b.setAttribute('aria-pressed', String(Number(b.dataset.window) === chartWindow));
    throughput.setWindow(chartWindow);
    failures.setWindow(chartWindow);
  }

  const throughput = new TimeChart(throughputBox, { label: 'Completed jobs per minute', format: (v) => num(v) });
  const failures = new TimeChart(failuresBox, { label: 'Failed attempts per minute', format: (v) => num(v) });
  showWindow();

  function drawCharts() {
    const now = Date.now();
    const done = pointsOf('completed');
    const failed = pointsOf('failed');
    throughput.update([{ name: '', className: 'series-ok', points: done }], now);
    failures.update([{ name: '', className: 'series-bad', points: failed }], now);
    const lastDone = done.length ? done[done.length - 1].v : null;
    const lastFailed = failed.length ? failed[failed.length - 1].v : null;
    throughputNow.textContent = lastDone === null ? '' : num(lastDone) + ' / min now';
    const rate = lastDone + lastFailed ? (100 * lastFailed) / (lastDone + lastFailed) : null;
    failuresNow.textContent = lastFailed === null ? '' : num(lastFailed) + ' / min now' + (rate === null ? '' : ' · ' + dec(rate) + ' %');
  }

  function syncQueueSelect() {
    const names = [...new Set([...queues, ...samples.flatMap((s) => [...s.queues.keys()])])].sort();
    const current = [...queueSelect.options].map((o) => o.value);
    const wanted = [ALL, ...names];
    if (current.join('\n') === wanted.join('\n')) return;
    replace(queueSelect, wanted.map((q) => h('option', { value: q, text: q === ALL ? 'All queues' : q })));
    if (!wanted.includes(chartQueue)) chartQueue = ALL;
    queueSelect.value = chartQueue;
  }

  function showUpdated() {
    if (lastOk === null) return;
    const s = Math.round((Date.now() - lastOk) / 1000);
    updated.textContent = s < 2 ? 'live · updated just now' : 'live · updated ' + s + ' s ago';
  }

  let polling = false;
  let pollAgain = false;
  /** Whether this opening of the overview has fitted the window to the data (at its first poll). */
  let fitted = false;

  /** One poll at a time: a poll asked for while one runs (after an action) runs right after it. */
  async function poll() {
    if (stopped) return;
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    clearTimeout(timer);
    try {
      const [stats, settings, limits] = await Promise.all([
        api.get('/api/stats'),
        api.get('/api/queues').catch(() => ({ queues: [], runningByTenant: [] })),
        api.get('/api/rate-limits').catch(() => ({ rateLimits: [] })),
      ]);
      if (stopped) return;
      const rows = stats.queues || [];
      const now = Date.now();
      addSample(sampleOf(now, rows));
      const groups = groupByQueue(rows, settings.queues || []);
      queues = groups.map((g) => g.queue);
      renderCards(cardsEl, totals(rows));
      renderTable(tableEl, groups, session, setPaused);
      renderTenants(tenantsEl, settings.runningByTenant || []);
      rateLimits.update(limits.rateLimits || []);
      syncQueueSelect();
      if (!windowPicked && !fitted) {
        fitted = true;
        chartWindow = fittingWindow(samples, now);
        showWindow();
      }
      drawCharts();
      lastOk = now;
      showUpdated();
      ui.banner(null);
      ui.loaded();
    } catch (e) {
      if (stopped) return;
      ui.banner('Statistics could not be loaded (' + e.message + '); retrying.');
    } finally {
      polling = false;
    }
    if (stopped) return;
    if (pollAgain) {
      pollAgain = false;
      poll();
    } else {
      timer = setTimeout(poll, POLL_MS);
    }
  }

  async function setPaused(queue, pause) {
    flash.clear();
    try {
      await api.post('/api/queues/' + encodeURIComponent(queue) + (pause ? '/pause' : '/resume'));
      flash.show(pause ? 'Queue ' + queue + ' is paused: workers claim none of its jobs until it is resumed.'
        : 'Queue ' + queue + ' is resumed.', 'ok');
    } catch (e) {
      flash.show((pause ? 'Pausing ' : 'Resuming ') + queue + ' failed: ' + e.message, 'error');
    }
    await poll();
  }

  (async () => {
    try {
      const history = await api.get('/api/stats/history');
      if (!stopped) mergeHistory(history, Date.now());
    } catch (e) {
      // the charts fill from live polls alone
    }
    poll();
  })();
  const ticker = setInterval(showUpdated, 1000);

  return () => {
    stopped = true;
    clearTimeout(timer);
    clearInterval(ticker);
  };
}
