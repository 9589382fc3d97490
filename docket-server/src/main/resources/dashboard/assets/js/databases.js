// Databases: a server of several databases (docket serve --database NAME=URL) shows each one here as a
// section: its queues, its workers and its dead jobs (GET /api/databases), and finds a job of any
// database by DATABASE/ID (ids are per database). The other pages show the default database.
// A server of one database answers 404 for /api/databases: the page says so. Refreshed every 5 s.

import { api, ApiError } from './api.js';
import { h, replace, note, num, stateBadge } from './dom.js';

const POLL_MS = 5000;

export function renderDatabases(main, route, session, ui) {
  let stopped = false;
  let timer = null;
  const body = h('div', { id: 'databases-body' }, h('p', { class: 'loading', text: 'Loading…' }));
  const input = h('input', { id: 'database-job', type: 'text', placeholder: 'imaging/42', autocomplete: 'off',
    'aria-label': 'Job as DATABASE/ID' });
  const found = h('div', { id: 'database-job-result' });
  const form = h('form', { class: 'filters', id: 'database-job-form' }, input,
    h('button', { type: 'submit', class: 'button', text: 'Find job' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const m = /^([A-Za-z0-9_-]{1,63})\/([1-9][0-9]{0,18})$/.exec(input.value.trim());
    if (!m) {
      replace(found, note('Give a job as DATABASE/ID, for example imaging/42.', 'error'));
      return;
    }
    try {
      const job = await api.get('/api/databases/' + encodeURIComponent(m[1]) + '/jobs/' + m[2]);
      replace(found, h('p', { id: 'database-job-found' },
        h('span', { class: 'mono', text: m[1] + '/' + job.id + ' ' }), stateBadge(job.state),
        h('span', { text: ' ' + job.kind + ' on queue ' + job.queue + ', attempt ' + job.attempt })));
    } catch (err) {
      replace(found, note(err.message, 'error'));
    }
  });

  async function load() {
    clearTimeout(timer);
    try {
      const { databases } = await api.get('/api/databases');
      if (stopped) return;
      replace(body, ...databases.map(section));
      ui.banner(null);
      ui.loaded();
    } catch (e) {
      if (stopped) return;
      if (e instanceof ApiError && e.status === 404) {
        replace(body, note('This server serves one database: every page shows it. Serve several with '
          + 'docket serve --database NAME=URL.'));
        ui.loaded();
        return;
      }
      ui.banner('Databases could not be loaded (' + e.message + '); retrying.');
    }
    if (!stopped) timer = setTimeout(load, POLL_MS);
  }

  replace(main,
    h('div', { class: 'page-head' },
      h('div', {},
        h('h1', { text: 'Databases' }),
        h('p', { class: 'subtitle', text: 'Each database\'s queues, workers and dead jobs. A queue lives in one '
          + 'database; job ids are per database.' }))),
    h('section', { class: 'card' }, h('h2', { text: 'Find a job' }), form, found),
    body);
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function section(d) {
  const live = d.workers.filter((w) => w.live);
  return h('section', { class: 'card', id: 'database-' + d.name, data: { database: d.name } },
    h('h2', { text: d.name + (d.isDefault ? ' (default)' : '') }),
    h('p', { class: 'subtitle', data: { col: 'summary' },
      text: num(d.queues.length) + ' queues, ' + num(live.length) + ' live workers, ' + num(d.deadJobs) + ' dead jobs' }),
    d.queues.length ? queueTable(d) : note('No jobs in this database.'),
    d.workers.length ? workerTable(d) : note('No worker is registered on this database.'));
}

function queueTable(d) {
  const head = [['Queue'], ['Kind'], ['Ready', 'num'], ['Running', 'num'], ['Scheduled', 'num'], ['Dead', 'num']];
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table', data: { table: 'queues' } },
      h('thead', {}, h('tr', {}, head.map(([t, cls]) => h('th', { scope: 'col', class: cls || null, text: t })))),
      h('tbody', {}, d.queues.map((q) => h('tr', { data: { queue: q.queue } },
        h('td', { class: 'mono', text: q.queue }),
        h('td', { class: 'mono', text: q.kind }),
        h('td', { class: 'num', data: { col: 'ready' }, text: num(q.ready) }),
        h('td', { class: 'num', text: num(q.running) }),
        h('td', { class: 'num', text: num(q.scheduled) }),
        h('td', { class: ['num', q.dead > 0 && 'warn'], text: num(q.dead) }))))));
}

function workerTable(d) {
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table', data: { table: 'workers' } },
      h('thead', {}, h('tr', {}, ['Worker', 'Host', 'Queues', 'Status'].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, d.workers.map((w) => h('tr', { data: { worker: w.id } },
        h('td', { class: 'mono', text: w.id }),
        h('td', { text: w.host }),
        h('td', { text: Object.keys(w.queues).sort().join(', ') || '—' }),
        h('td', {}, h('span', { class: ['badge', w.live ? 'severity-ok' : 'severity-problem'],
          text: w.live ? 'live' : 'stopped' })))))));
}
