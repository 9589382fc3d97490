// Durable waits on a job's page: what a waiting job waits for, with a button that sends the signal (an
// "approve" with an optional JSON payload) for roles that may signal; the signals sent to it; its progress
// bar; and its log lines per attempt. Everything a job or a handler wrote reaches the page as text.

import { api } from './api.js';
import { h, replace, num, time } from './dom.js';
import { field } from './widgets.js';

/** What a waiting job waits for, and the form that sends its signal; null for a job that waits for none. */
export function waitSection(job, session, flash, onSent) {
  const w = job.signalWait;
  if (!w) return null;
  const then = w.deadline
    ? [' Without it, the job ', { run: 'runs anyway', fail: 'fails (to the dead letters)', cancel: 'is cancelled' }[w.onTimeout]
      || w.onTimeout, ' ', time(w.deadline), '.']
    : [' It waits without a timeout.'];
  const section = h('section', { class: 'card wait', id: 'job-wait' },
    h('h2', {}, 'Waiting for signal ', h('span', { class: 'signal-name', id: 'wait-signal', text: w.signal })),
    h('p', {}, 'Since ', time(w.since), '.', ...then));
  if (!session.canSignal) {
    section.append(h('p', { class: 'muted', text: 'The ' + session.role + ' role may not send signals.' }));
    return section;
  }
  const payload = h('textarea', {
    id: 'signal-payload', class: 'code', rows: 3, spellcheck: 'false', 'aria-label': 'Payload (JSON, optional)',
    placeholder: '{"note": "approved by phone"}  (optional)',
  });
  const send = h('button', {
    type: 'button', class: 'button primary', id: 'send-signal', text: 'Send “' + w.signal + '”',
    title: 'Ends the wait: the job becomes ready. Recorded in the job with who sent it.',
    on: {
      click: async () => {
        flash.clear();
        const body = { name: w.signal };
        if (payload.value.trim() !== '') {
          try {
            body.payload = JSON.parse(payload.value);
          } catch (e) {
            flash.show('The payload is not valid JSON: ' + e.message, 'error');
            return;
          }
        }
        send.disabled = true;
        try {
          const r = await api.post('/api/jobs/' + job.id + '/signals', body);
          flash.show(r.delivery === 'resumed'
            ? 'Signal “' + w.signal + '” sent by ' + r.sentBy + ': it ended the wait; job #' + job.id + ' is now ' + r.state + '.'
            : 'Signal “' + w.signal + '” kept for job #' + job.id + ' (it no longer waited for it).', 'ok');
          await onSent();
        } catch (e) {
          flash.show('The signal was not sent: ' + e.message, 'error');
          send.disabled = false;
        }
      },
    },
  });
  section.append(field('Payload (JSON, optional)', payload), h('div', { class: 'actions' }, send));
  return section;
}

/** The signals sent to the job, newest first; payloads only for roles that see payloads, behind a toggle. */
export function signalsSection(job, session) {
  if (!job.signals || !job.signals.length) return null;
  const shown = { on: false };
  const rows = h('tbody', {});
  const render = () => replace(rows, job.signals.slice().reverse().map((s) => h('tr', { data: { signal: s.id } },
    h('td', { class: 'signal-name', text: s.name }),
    h('td', { class: 'nowrap' }, time(s.sentAt)),
    h('td', { class: s.sentBy ? null : 'muted', text: s.sentBy || 'the application' }),
    h('td', {}, s.resumedAt ? ['ended a wait ', time(s.resumedAt)] : h('span', { class: 'muted', text: 'kept' })),
    session.seesPayloads && !s.payloadRedacted
      ? h('td', {}, s.payloadEncrypted ? h('span', { class: 'muted signal-encrypted', text: 'encrypted' })
        : shown.on ? h('pre', { class: 'error-text signal-payload', text: JSON.stringify(s.payload) })
          : h('span', { class: 'muted', text: 'hidden' }))
      : null)));
  const toggle = session.seesPayloads
    ? h('button', {
      type: 'button', class: 'button quiet', id: 'show-signal-payloads', text: 'Show payloads',
      on: {
        click: () => {
          shown.on = !shown.on;
          toggle.textContent = shown.on ? 'Hide payloads' : 'Show payloads';
          render();
        },
      },
    })
    : null;
  render();
  return h('section', { class: 'card', id: 'job-signals' },
    h('h2', {}, 'Signals ', h('span', { class: 'count', text: num(job.signals.length) })),
    toggle ? h('div', { class: 'actions' }, toggle) : null,
    h('div', { class: 'table-wrap' }, h('table', { class: 'table signals', id: 'signals' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: 'Signal' }), h('th', { scope: 'col', text: 'Sent' }),
        h('th', { scope: 'col', text: 'By' }), h('th', { scope: 'col', text: 'Effect' }),
        session.seesPayloads ? h('th', { scope: 'col', text: 'Payload' }) : null)),
      rows)));
}

/** The handler's last progress report as a bar with its message; null when it made none. */
export function progressSection(job) {
  const p = job.progress;
  if (!p) return null;
  const percent = Math.round(p.fraction * 1000) / 10;
  return h('section', { class: 'card', id: 'job-progress' },
    h('h2', { text: 'Progress' }),
    h('div', { class: 'progress-row' },
      h('progress', { max: 1, value: p.fraction, id: 'progress-bar', 'aria-label': 'Progress' }),
      h('span', { class: 'progress-percent', id: 'progress-percent', text: percent + ' %' })),
    p.message ? h('p', { id: 'progress-message', text: p.message }) : null,
    h('p', { class: 'muted' }, 'Reported by attempt ' + p.attempt + ', ', time(p.at), '.'));
}

/** The log lines each attempt kept, newest attempt first; null when no attempt logged. */
export function logsSection(job) {
  if (!job.logs || !job.logs.length) return null;
  return h('section', { class: 'card', id: 'job-logs' },
    h('h2', { text: 'Logs' }),
    job.logs.slice().reverse().map((l) => h('div', { class: 'attempt-log', data: { attempt: l.attempt } },
      h('h3', {}, 'Attempt ' + l.attempt,
        l.droppedLines > 0 ? h('span', { class: 'count', text: num(l.droppedLines) + ' older lines dropped' }) : null),
      h('ol', { class: 'log-lines' }, l.lines.map((line) => h('li', {},
        time(line.at), ' ', h('pre', { class: 'error-text log-line', text: line.message })))))));
}

/** Timeline events: when the job began to wait, and when signals ended waits. */
export function waitEvents(job) {
  const events = [];
  if (job.signalWait) events.push({ at: job.signalWait.since, label: 'Waiting for signal “' + job.signalWait.signal + '”' });
  for (const s of job.signals || []) {
    if (s.resumedAt) events.push({ at: s.resumedAt, label: 'Signal “' + s.name + '” ended a wait', tone: 'ok' });
  }
  return events;
}
