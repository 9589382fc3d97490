// Workers: each worker process's own line (GET /api/workers), from the row it rewrites at every heartbeat:
// host and pid, queues and slots, handlers running now, attempts finished and failed in the last minute,
// and how long ago its last heartbeat was (by the database clock). Nothing is scraped from the workers,
// so a slow or idle process shows here even when nothing collects its /metrics. Refreshed every 5 s.

import { api } from './api.js';
import { h, replace, note, num, duration } from './dom.js';

const POLL_MS = 5000;

export function renderWorkers(main, route, session, ui) {
  let stopped = false;
  let timer = null;
  const cards = h('div', { class: 'metrics', id: 'worker-metrics' });
  const body = h('div', { id: 'workers-body' }, h('p', { class: 'loading', text: 'Loading…' }));

  async function load() {
    clearTimeout(timer);
    try {
      const { workers } = await api.get('/api/workers');
      if (stopped) return;
      renderCards(cards, workers);
      replace(body, workers.length ? table(workers) : note('No worker is registered. Start one: docket worker --queue default=16'));
      ui.banner(null);
      ui.loaded();
    } catch (e) {
      if (stopped) return;
      ui.banner('Workers could not be loaded (' + e.message + '); retrying.');
    }
    if (!stopped) timer = setTimeout(load, POLL_MS);
  }

  replace(main,
    h('div', { class: 'page-head' },
      h('div', {},
        h('h1', { text: 'Workers' }),
        h('p', { class: 'subtitle', text: 'Each worker process as its last heartbeat reported it: a slow one runs handlers '
          + 'but finishes few, an idle one runs none.' }))),
    cards,
    h('section', { class: 'card' }, h('h2', { text: 'Registered workers' }), body));
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function card(id, label, value, detail) {
  return h('div', { class: ['card', 'metric'], id: 'worker-metric-' + id },
    h('div', { class: 'metric-label', text: label }),
    h('div', { class: 'metric-value', data: { value: id }, text: value }),
    h('div', { class: 'metric-detail', text: detail }));
}

function renderCards(el, workers) {
  const live = workers.filter((w) => w.live);
  const slots = live.reduce((n, w) => n + w.concurrency, 0);
  const running = live.reduce((n, w) => n + w.handlersRunning, 0);
  const finished = live.reduce((n, w) => n + w.finishedLastMinute, 0);
  const failed = live.reduce((n, w) => n + w.failedLastMinute, 0);
  replace(el,
    card('live', 'Live workers', num(live.length), num(workers.length - live.length) + ' stopped heartbeating'),
    card('busy', 'Handlers running', num(running) + ' / ' + num(slots), 'of the live workers\' slots'),
    card('finished', 'Finished / min', num(finished), num(failed) + ' of them failed'));
}

/** What a live worker is doing: busy (every slot taken), idle (nothing running or finished), or working. */
function activity(w) {
  if (!w.live) return { key: 'stopped', text: 'stopped', tone: 'severity-problem' };
  if (w.handlersRunning >= w.concurrency && w.concurrency > 0) return { key: 'busy', text: 'busy', tone: 'severity-warning' };
  if (w.handlersRunning === 0 && w.finishedLastMinute === 0) return { key: 'idle', text: 'idle', tone: 'state-scheduled' };
  return { key: 'working', text: 'working', tone: 'severity-ok' };
}

function table(workers) {
  const head = [['Worker'], ['Host'], ['PID', 'num'], ['Queues'], ['Running', 'num'], ['Done / min', 'num'],
    ['Failed / min', 'num'], ['Last heartbeat'], ['Version'], ['Status']];
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table', id: 'worker-list' },
      h('thead', {}, h('tr', {}, head.map(([t, cls]) => h('th', { scope: 'col', class: cls || null, text: t })))),
      h('tbody', {}, workers.map((w) => {
        const a = activity(w);
        return h('tr', { data: { worker: w.id, live: w.live, activity: a.key } },
          h('td', { class: 'mono', data: { col: 'id' }, text: w.id }),
          h('td', { data: { col: 'host' }, text: w.host }),
          h('td', { class: 'num', data: { col: 'pid' }, text: String(w.pid) }),
          h('td', { data: { col: 'queues' }, text: Object.entries(w.queues).sort(([a1], [b1]) => a1.localeCompare(b1))
            .map(([q, n]) => q + '=' + n).join(', ') || '—' }),
          h('td', { class: 'num', data: { col: 'running' }, text: num(w.handlersRunning) + ' / ' + num(w.concurrency) }),
          h('td', { class: 'num', data: { col: 'finished' }, text: num(w.finishedLastMinute) }),
          h('td', { class: ['num', w.failedLastMinute > 0 && 'warn'], data: { col: 'failed' }, text: num(w.failedLastMinute) }),
          h('td', { data: { col: 'heartbeat' }, title: w.heartbeatAt, text: duration(w.heartbeatAgeSeconds) + ' ago' }),
          h('td', { class: 'muted', data: { col: 'version' }, text: w.version }),
          h('td', { data: { col: 'status' } }, h('span', { class: ['badge', a.tone], text: a.text })));
      }))));
}
