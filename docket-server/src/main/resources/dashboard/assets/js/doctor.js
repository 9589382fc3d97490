// Doctor: the runbook as checks (GET /api/doctor). What is wrong, with its evidence and its fix, the
// worst first; the kinds that no live worker serves; the registered workers; then what passed.

import { api } from './api.js';
import { h, replace, note, time, num, actionButton } from './dom.js';

const LABEL = { problem: 'Problem', warning: 'Warning', ok: 'OK' };

export function renderDoctor(main, route, session, ui) {
  let stopped = false;
  const body = h('div', { id: 'doctor-body' }, h('p', { class: 'loading', text: 'Loading…' }));

  async function load() {
    let report;
    try {
      report = await api.get('/api/doctor');
    } catch (e) {
      if (!stopped) replace(body, note(e.message, 'error'));
      return;
    }
    if (stopped) return;
    const failing = report.findings.filter((f) => f.severity !== 'ok');
    replace(body,
      status(report, failing),
      failing.length ? h('div', { id: 'findings' }, failing.map(finding)) : null,
      unserved(failing.filter((f) => f.check === 'unserved_kinds')),
      workers(report.workers),
      passed(report.findings.filter((f) => f.severity === 'ok')));
    ui.loaded();
  }

  replace(main,
    h('div', { class: 'page-head' },
      h('div', {},
        h('h1', { text: 'Doctor' }),
        h('p', { class: 'subtitle', text: 'The runbook as checks: each finding names its cause, its evidence and its fix.' })),
      h('div', { class: 'actions' }, actionButton('Check again', load, { class: 'button quiet', id: 'doctor-refresh' }))),
    body);
  load();
  return () => {
    stopped = true;
  };
}

function status(report, failing) {
  const problems = failing.filter((f) => f.severity === 'problem').length;
  const warnings = failing.length - problems;
  const text = failing.length === 0 ? 'Healthy: every check passed.'
    : problems + (problems === 1 ? ' problem' : ' problems') + ', ' + warnings + (warnings === 1 ? ' warning' : ' warnings') + '.';
  return h('p', { class: ['doctor-status', 'severity-' + report.status], id: 'doctor-status', data: { status: report.status } },
    h('strong', { text }), ' Checked ', time(report.checkedAt), ' · docket doctor exits ' + report.exitCode + '.');
}

function finding(f) {
  return h('article', { class: ['card', 'finding', 'severity-' + f.severity], data: { check: f.check, severity: f.severity } },
    h('h2', {},
      h('span', { class: ['badge', 'severity-' + f.severity], text: LABEL[f.severity] || f.severity }), ' ',
      h('span', { class: 'check', text: f.check }), ' ',
      h('span', { class: 'subject', text: f.subject })),
    h('dl', { class: 'facts' },
      h('dt', { text: 'Cause' }), h('dd', { class: 'cause', text: f.cause }),
      h('dt', { text: 'Evidence' }), h('dd', { class: 'evidence', text: f.evidence }),
      h('dt', { text: 'Fix' }), h('dd', {}, h('pre', { class: 'code fix', text: f.fix }))));
}

function unserved(found) {
  return h('section', { class: 'card', id: 'unserved' },
    h('h2', { text: 'Kinds no live worker serves' }),
    found.length === 0
      ? h('p', { class: 'muted', text: 'Every waiting job has a live worker for its queue and kind.' })
      : h('ul', { class: 'unserved-list' }, found.map((f) => h('li', { data: { subject: f.subject } },
        h('strong', { text: f.subject }), ': ' + f.evidence))));
}

function workers(list) {
  const section = h('section', { class: 'card', id: 'workers-card' }, h('h2', { text: 'Workers' }));
  if (!list.length) {
    section.append(h('p', { class: 'muted', text: 'No worker is registered.' }));
    return section;
  }
  section.append(h('div', { class: 'table-wrap' },
    h('table', { class: 'table', id: 'workers' },
      h('thead', {}, h('tr', {}, ['Worker', 'Host', 'PID', 'Queues', 'Kinds', 'Running', 'Last heartbeat', 'Version', 'Live']
        .map((t) => h('th', { scope: 'col', class: t === 'PID' || t === 'Running' ? 'num' : null, text: t })))),
      h('tbody', {}, list.map((w) => h('tr', { data: { worker: w.id, live: w.live } },
        h('td', { class: 'mono', text: w.id }),
        h('td', { text: w.host }),
        h('td', { class: 'num', text: String(w.pid) }),
        h('td', { text: Object.entries(w.queues).map(([q, n]) => q + '=' + n).join(', ') || '—' }),
        h('td', { text: Object.keys(w.kinds).sort().join(', ') || '—' }),
        h('td', { class: 'num', text: num(w.running) }),
        h('td', {}, time(w.heartbeatAt)),
        h('td', { class: 'muted', text: w.version }),
        h('td', {}, h('span', { class: ['badge', w.live ? 'severity-ok' : 'severity-problem'], text: w.live ? 'live' : 'stopped' }))))))));
  return section;
}

function passed(list) {
  return h('section', { class: 'card', id: 'passed' },
    h('h2', { text: 'Passed' }),
    h('ul', { class: 'passed-list' }, list.map((f) => h('li', { data: { check: f.check } },
      h('span', { class: 'check', text: f.check }), ' ', h('span', { class: 'subject', text: f.subject }), ': ',
      f.cause, f.evidence ? h('span', { class: 'muted', text: ' (' + f.evidence + ')' }) : null))));
}
