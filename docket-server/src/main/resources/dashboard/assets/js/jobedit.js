// Jobs an operator makes or changes: "New job" on the jobs page, for roles that may enqueue (the kinds and
// queues live workers serve are offered), and "Edit" / "Run now" on the page of a job that has not started,
// for roles that operate (editing the payload also needs to see it). The server applies an edit in one
// statement on the job's state: a job that started meanwhile keeps its old values and the answer is a
// conflict, shown here as it is. Each edit is recorded in the job (metadata "docket.edits": who, when, what).

import { api } from './api.js';
import { h, replace } from './dom.js';
import { field, fillDatalist } from './widgets.js';

const NOT_STARTED = new Set(['scheduled', 'ready']);

/** Parses JSON text: { value }, or null after showing what to fix (null, false and 0 are JSON values too). */
function parseJson(text, what, flash) {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    flash.show(what + ' is not valid JSON: ' + e.message, 'error');
    return null;
  }
}

/** A datetime-local value (the viewer's time) as an ISO instant, or '' for none. */
function instantOf(local) {
  if (!local) return '';
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

/** An ISO instant as a datetime-local value in the viewer's time zone, to the second. */
function localOf(iso) {
  const t = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return t.getFullYear() + '-' + pad(t.getMonth() + 1) + '-' + pad(t.getDate()) + 'T' + pad(t.getHours()) + ':'
    + pad(t.getMinutes()) + ':' + pad(t.getSeconds());
}

/** The kinds and queues live workers serve (GET /api/workers), for hints; best effort. */
async function servedNames() {
  try {
    const { workers } = await api.get('/api/workers');
    const kinds = new Set();
    const queues = new Set();
    for (const w of workers.filter((x) => x.live)) {
      Object.keys(w.kinds || {}).forEach((k) => kinds.add(k));
      Object.keys(w.queues || {}).forEach((q) => queues.add(q));
    }
    return { kinds: [...kinds].sort(), queues: [...queues].sort() };
  } catch (e) {
    return { kinds: [], queues: [] };
  }
}

/** "New job" on the jobs page: a form that enqueues with POST /api/jobs and opens the new job's page. */
export function newJobPanel(session, flash) {
  if (!session.canEnqueue) return null;
  const slot = h('div', { id: 'new-job-slot' });
  const open = h('button', { type: 'button', class: 'button', id: 'new-job', text: 'New job', on: { click: () => show() } });

  function show() {
    const kindNames = h('datalist', { id: 'new-job-kinds' });
    const queueNames = h('datalist', { id: 'new-job-queues' });
    const kind = h('input', { id: 'new-job-kind', list: 'new-job-kinds', required: true, autocomplete: 'off', placeholder: 'send_email' });
    const queue = h('input', { id: 'new-job-queue', list: 'new-job-queues', autocomplete: 'off', placeholder: 'default' });
    const payload = h('textarea', { id: 'new-job-payload', class: 'code', rows: 6, spellcheck: 'false', 'aria-label': 'Payload (JSON)' });
    payload.value = '{}';
    const priority = h('input', { id: 'new-job-priority', type: 'number', min: -32768, max: 32767, step: 1, placeholder: '0' });
    const runAt = h('input', { id: 'new-job-run-at', type: 'datetime-local', step: 1 });
    const maxAttempts = h('input', { id: 'new-job-max-attempts', type: 'number', min: 1, step: 1, placeholder: 'the kind\'s' });
    const served = h('p', { class: 'muted', id: 'new-job-served' });
    servedNames().then((names) => {
      fillDatalist(kindNames, names.kinds);
      fillDatalist(queueNames, names.queues);
      served.textContent = names.kinds.length
        ? 'Live workers serve: ' + names.kinds.join(', ') + '.'
        : 'No live worker serves any kind now: the job waits until one does.';
    });
    const create = h('button', {
      type: 'submit', class: 'button primary', id: 'new-job-create', text: 'Create job',
    });
    const form = h('form', { class: 'edit-form', id: 'new-job-form' },
      h('h2', { text: 'New job' }), served,
      h('div', { class: 'filters' }, field('Kind', kind), field('Queue', queue), field('Priority', priority),
        field('Run at (your time)', runAt), field('Max attempts', maxAttempts)),
      field('Payload (JSON)', payload),
      h('div', { class: 'actions' }, create,
        h('button', { type: 'button', class: 'button quiet', id: 'new-job-cancel', text: 'Cancel', on: { click: () => replace(slot) } })),
      kindNames, queueNames);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      flash.clear();
      const parsed = parseJson(payload.value, 'The payload', flash);
      if (!parsed) return;
      const body = { kind: kind.value.trim(), payload: parsed.value };
      if (queue.value.trim()) body.queue = queue.value.trim();
      if (priority.value !== '') body.priority = Number(priority.value);
      if (maxAttempts.value !== '') body.maxAttempts = Number(maxAttempts.value);
      const at = instantOf(runAt.value);
      if (at === null) {
        flash.show('The run time is not a valid date and time.', 'error');
        return;
      }
      if (at) body.runAt = at;
      create.disabled = true;
      try {
        const job = await api.post('/api/jobs', body);
        location.hash = '#/jobs/' + job.id;
      } catch (err) {
        flash.show('The job was not created: ' + err.message, 'error');
        create.disabled = false;
      }
    });
    replace(slot, form);
    kind.focus();
  }
  return h('div', { class: 'new-job' }, h('div', { class: 'actions' }, open), slot);
}

/** Whether this session may edit this job: it operates, and the job has not started (or waits). */
export function canEdit(job, session) {
  return Boolean(session.canOperate && (NOT_STARTED.has(job.state) || job.state === 'waiting'));
}

/** "Run now" for a scheduled job: POST /api/jobs/{id}/run-now, recorded in the job. */
export function runNowButton(job, act) {
  if (job.state !== 'scheduled') return null;
  return h('button', {
    type: 'button', class: 'button primary', id: 'job-run-now', text: 'Run now', title: 'Make it due now; recorded in the job',
    on: { click: () => act('Run now', '/api/jobs/' + job.id + '/run-now', 'Due now.') },
  });
}

/**
 * "Edit" for a job that has not started: its run time, priority and queue (a waiting job's priority only, as
 * its wait decides the rest), and its payload for roles that see payloads; saved with PATCH /api/jobs/{id}.
 */
export function jobEditor(job, payload, session, flash, onSaved) {
  const slot = h('div', { id: 'job-edit-slot' });
  const waiting = job.state === 'waiting';
  const open = h('button', { type: 'button', class: 'button', id: 'job-edit', text: 'Edit', on: { click: () => show() } });

  function show() {
    const text = session.seesPayloads ? h('textarea', { id: 'edit-payload', class: 'code', rows: 8, spellcheck: 'false', 'aria-label': 'Payload (JSON)' }) : null;
    if (text) text.value = JSON.stringify(payload, null, 2);
    const runAt = waiting ? null : h('input', { id: 'edit-run-at', type: 'datetime-local', step: 1, value: localOf(job.runAt) });
    const priority = h('input', { id: 'edit-priority', type: 'number', min: -32768, max: 32767, step: 1, value: job.priority });
    const queue = waiting ? null : h('input', { id: 'edit-queue', value: job.queue, autocomplete: 'off' });
    const save = h('button', { type: 'submit', class: 'button primary', id: 'edit-save', text: 'Save changes' });
    const form = h('form', { class: 'edit-form', id: 'job-edit-form' },
      waiting ? h('p', { class: 'muted', text: 'This job waits: its wait decides when it runs, so only its payload and priority can change.' }) : null,
      h('div', { class: 'filters' }, runAt ? field('Run at (your time)', runAt) : null, field('Priority', priority),
        queue ? field('Queue', queue) : null),
      text ? field('Payload (JSON)', text) : null,
      h('div', { class: 'actions' }, save,
        h('button', { type: 'button', class: 'button quiet', id: 'edit-cancel', text: 'Cancel', on: { click: () => replace(slot) } })));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      flash.clear();
      const body = {};
      if (text) {
        const parsed = parseJson(text.value, 'The payload', flash);
        if (!parsed) return;
        if (JSON.stringify(parsed.value) !== JSON.stringify(payload)) body.payload = parsed.value;
      }
      if (runAt && runAt.value !== localOf(job.runAt)) {
        const at = instantOf(runAt.value);
        if (!at) {
          flash.show('The run time is not a valid date and time.', 'error');
          return;
        }
        body.runAt = at;
      }
      if (priority.value !== '' && Number(priority.value) !== job.priority) body.priority = Number(priority.value);
      if (queue && queue.value.trim() !== job.queue) body.queue = queue.value.trim();
      if (!Object.keys(body).length) {
        flash.show('Nothing was changed.', 'info');
        return;
      }
      save.disabled = true;
      try {
        const result = await api.patch('/api/jobs/' + job.id, body);
        flash.show('Job #' + job.id + ' edited by ' + result.editedBy + '; it is ' + result.state + '.', 'ok');
        await onSaved();
      } catch (err) {
        flash.show('The edit was not saved: ' + err.message, 'error');
        save.disabled = false;
      }
    });
    replace(slot, form);
  }
  return { button: open, slot };
}

/** The edits recorded in a job's metadata, oldest first, as timeline events. */
export function editEvents(job) {
  const edits = (job.metadata && job.metadata['docket.edits']) || [];
  return Array.isArray(edits)
    ? edits.map((e) => ({ at: e.at, label: 'Edited (' + (Array.isArray(e.changed) ? e.changed.join(', ') : '') + ') by ' + e.by, tone: 'ok' }))
    : [];
}
