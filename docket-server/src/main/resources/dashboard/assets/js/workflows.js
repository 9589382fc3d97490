// A workflow's graph (#/workflows/ID, GET /api/workflows/{id}): steps in columns by depth, an arrow
// from each step to the steps that wait for it, each step coloured by its job's state; then the steps
// as a table with links to their jobs. #/workflows asks for an id.

import { api } from './api.js';
import { h, svg, replace, note, time, stateBadge, actionButton } from './dom.js';
import { flashArea } from './widgets.js';

const BOX_W = 170;
const BOX_H = 46;
const GAP_X = 70;
const GAP_Y = 22;

const LIVE = new Set(['scheduled', 'ready', 'running', 'waiting']);

export function renderWorkflow(main, route, session, ui) {
  const id = route.path[1];
  if (!id) {
    renderOpen(main, ui);
    return null;
  }
  let stopped = false;
  let timer = null;
  const flash = flashArea();
  const body = h('div', { id: 'workflow-body' }, h('p', { class: 'loading', text: 'Loading…' }));
  const head = h('div', { class: 'page-head' }, h('h1', { text: 'Workflow ' + id }));
  replace(main, head, flash, body);

  /** Runs a workflow action, then says what it did (from the count the API answers) and reloads. */
  async function act(label, path, said) {
    flash.clear();
    try {
      const changed = await api.post(path);
      flash.show(said(changed.steps), 'ok');
    } catch (e) {
      flash.show(label + ' failed: ' + e.message, 'error');
    }
    clearTimeout(timer);
    await load();
  }

  /** Only what applies: Retry while a step is dead or cancelled, Cancel while a step is unfinished. */
  function actions(w) {
    if (!session.canOperate) return null;
    const dead = w.steps.filter((s) => s.state === 'dead').length;
    const cancelled = w.steps.filter((s) => s.state === 'cancelled').length;
    const unfinished = w.steps.filter((s) => LIVE.has(s.state)).length;
    if (!dead && !cancelled && !unfinished) return null;
    return h('div', { class: 'actions', id: 'workflow-actions' },
      dead || cancelled ? actionButton('Retry failed steps', () => act('Retry', '/api/workflows/' + w.id + '/retry',
        (n) => retried(n, dead, cancelled)), {
        class: 'button quiet', id: 'workflow-retry',
        title: 'Re-run the dead and cancelled steps and what waits for them',
      }) : null,
      unfinished ? actionButton('Cancel', () => act('Cancel', '/api/workflows/' + w.id + '/cancel',
        (n) => (n ? 'Cancelled ' + stepCount(n) + '.' : 'Nothing to cancel: every step has finished.')), {
        class: 'button quiet', id: 'workflow-cancel', title: 'Cancel the ' + stepCount(unfinished) + ' not finished',
      }) : null);
  }

  async function load() {
    let w;
    try {
      w = await api.get('/api/workflows/' + encodeURIComponent(id));
    } catch (e) {
      if (!stopped) replace(body, note(e.message, 'error'));
      ui.loaded();
      return;
    }
    if (stopped) return;
    replace(head,
      h('div', {},
        h('h1', {}, 'Workflow ' + w.id + ' ', h('span', { class: ['badge', 'wf-status-' + w.status], id: 'workflow-status', text: w.status })),
        h('p', { class: 'subtitle' }, h('span', { id: 'workflow-name', text: w.name }), ' · created ', time(w.createdAt))),
      actions(w));
    replace(body, graph(w.steps), table(w.steps));
    ui.loaded();
    if (w.status === 'running') timer = setTimeout(load, 2000);
  }
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function stepCount(n) {
  return n + (n === 1 ? ' step' : ' steps');
}

/** "Retried 1 dead step.", "Retried 3 steps: 1 dead, 2 cancelled." (the states the page showed before). */
function retried(n, dead, cancelled) {
  if (!n) return 'Nothing retried: no step is dead or cancelled now.';
  if (n === dead && !cancelled) return 'Retried ' + n + ' dead ' + (n === 1 ? 'step' : 'steps') + '.';
  if (n === cancelled && !dead) return 'Retried ' + n + ' cancelled ' + (n === 1 ? 'step' : 'steps') + '.';
  if (n === dead + cancelled) return 'Retried ' + stepCount(n) + ': ' + dead + ' dead, ' + cancelled + ' cancelled.';
  return 'Retried ' + stepCount(n) + '.';
}

function renderOpen(main, ui) {
  const input = h('input', { id: 'workflow-id', type: 'text', inputmode: 'numeric', 'aria-label': 'Workflow id' });
  const form = h('form', { class: 'toolbar', id: 'workflow-open' }, input, h('button', { class: 'button', type: 'submit', text: 'Open' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (/^[1-9][0-9]{0,18}$/.test(input.value.trim())) location.hash = '#/workflows/' + input.value.trim();
  });
  replace(main, h('div', { class: 'page-head' }, h('h1', { text: 'Workflows' })),
    h('p', { class: 'subtitle', text: 'Open a workflow by the id its enqueue returned.' }), form);
  ui.loaded();
}

/** Columns by depth (a step is one column right of its deepest dependency), rows in the API's order. */
function layout(steps) {
  const depth = new Map();
  const at = new Map();
  const rows = [];
  for (const s of steps) {
    const d = s.after.reduce((m, a) => Math.max(m, (depth.get(a) ?? -1) + 1), 0);
    depth.set(s.name, d);
    rows[d] = (rows[d] || 0) + 1;
    at.set(s.name, { x: d * (BOX_W + GAP_X), y: (rows[d] - 1) * (BOX_H + GAP_Y) });
  }
  const width = (Math.max(0, ...depth.values()) + 1) * (BOX_W + GAP_X) - GAP_X;
  const height = Math.max(...rows.filter(Boolean)) * (BOX_H + GAP_Y) - GAP_Y;
  return { at, width, height };
}

function graph(steps) {
  const { at, width, height } = layout(steps);
  const edges = [];
  for (const s of steps) {
    const to = at.get(s.name);
    for (const a of s.after) {
      const from = at.get(a);
      if (!from) continue;
      edges.push(svg('line', { class: 'wf-edge', x1: from.x + BOX_W, y1: from.y + BOX_H / 2, x2: to.x, y2: to.y + BOX_H / 2,
        'marker-end': 'url(#wf-arrow)', data: { from: a, to: s.name } }));
    }
  }
  const nodes = steps.map((s) => {
    const p = at.get(s.name);
    const state = s.state || 'gone';
    return svg('g', { class: ['wf-node', 'wf-' + state], transform: 'translate(' + p.x + ',' + p.y + ')', data: { step: s.name, state } },
      svg('title', { text: s.name + ' (' + (s.kind || '?') + '): ' + state }),
      svg('rect', { width: BOX_W, height: BOX_H, rx: 6 }),
      svg('text', { x: 10, y: 19, class: 'wf-name', text: s.name.length > 22 ? s.name.slice(0, 21) + '…' : s.name }),
      svg('text', { x: 10, y: 36, class: 'wf-state', text: state }));
  });
  return h('div', { class: ['card', 'wf-graph'], id: 'workflow-graph' },
    svg('svg', { viewBox: '-2 -2 ' + (width + 4) + ' ' + (height + 4), width: width + 4, height: height + 4, role: 'img',
      'aria-label': 'The workflow\'s steps and what each waits for' },
    svg('defs', {}, svg('marker', { id: 'wf-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'wf-arrowhead' }))),
    edges, nodes));
}

function table(steps) {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'table', id: 'workflow-steps' },
    h('thead', {}, h('tr', {}, ['Step', 'Job', 'Kind', 'State', 'Waits for'].map((t) => h('th', { text: t })))),
    h('tbody', {}, steps.map((s) => h('tr', { data: { step: s.name } },
      h('td', { text: s.name }),
      h('td', {}, h('a', { href: '#/jobs/' + s.jobId, text: String(s.jobId) })),
      h('td', { text: s.kind || '—' }),
      h('td', {}, s.state ? stateBadge(s.state) : h('span', { class: 'muted', text: 'gone' })),
      h('td', { text: s.after.join(', ') || '—' }))))));
}
