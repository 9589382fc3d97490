// Jobs: a filtered, keyset-paged listing and one job's detail (timeline, error history, actions, what
// it waits for with the signal that ends it, progress, logs per attempt, and its payload and recorded
// output behind an explicit action for the roles that may see payloads).

import { api, qs, ApiError } from './api.js';
import { h, replace, num, time, paramsOf, stateBadge, hashOf, note, actionButton } from './dom.js';
import { pager, confirmBar, flashArea, knownNames, fillDatalist, field } from './widgets.js';
import { canRepair, payloadEditor, repairEvents } from './repair.js';
import { explainLine } from './explain.js';
import { waitSection, signalsSection, progressSection, logsSection, waitEvents } from './waits.js';
import { newJobPanel, canEdit, runNowButton, jobEditor, editEvents } from './jobedit.js';

const STATES = ['scheduled', 'ready', 'running', 'waiting', 'completed', 'cancelled', 'dead'];
const LIVE = new Set(['scheduled', 'ready', 'running', 'waiting']);

export function renderJobs(main, route, session, ui) {
  const filters = paramsOf(route, ['state', 'queue', 'kind']);
  const after = route.params.get('after') || '';

  const state = h('select', { name: 'state', id: 'filter-state' },
    h('option', { value: '', text: 'Any state' }),
    STATES.map((s) => h('option', { value: s, text: s })));
  state.value = filters.state;
  const queue = h('input', { name: 'queue', id: 'filter-queue', list: 'queue-names', value: filters.queue, placeholder: 'any', autocomplete: 'off' });
  const kind = h('input', { name: 'kind', id: 'filter-kind', list: 'kind-names', value: filters.kind, placeholder: 'any', autocomplete: 'off' });
  const queueNames = h('datalist', { id: 'queue-names' });
  const kindNames = h('datalist', { id: 'kind-names' });
  const form = h('form', { class: 'filters', id: 'job-filters' },
    field('State', state), field('Queue', queue), field('Kind', kind),
    h('div', { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'button primary', id: 'filter-apply', text: 'Filter' }),
      h('a', { class: 'button quiet', href: '#/jobs', id: 'filter-clear', text: 'Clear' })),
    queueNames, kindNames);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = hashOf('jobs', { state: state.value, queue: queue.value.trim(), kind: kind.value.trim() });
  });
  state.addEventListener('change', () => form.requestSubmit());

  const results = h('div', { id: 'job-results' }, h('p', { class: 'loading', text: 'Loading…' }));
  const flash = flashArea();
  replace(main,
    h('div', { class: 'page-head' }, h('h1', { text: 'Jobs' })),
    flash,
    newJobPanel(session, flash),
    form,
    results);

  knownNames().then((names) => {
    fillDatalist(queueNames, names.queues);
    fillDatalist(kindNames, names.kinds);
  });

  (async () => {
    try {
      const page = await api.get('/api/jobs' + qs({ ...filters, after }));
      replace(results, jobTable(page.jobs), pager('jobs', filters, after, page.next));
      ui.loaded();
    } catch (e) {
      replace(results, note(e.message, 'error'));
    }
  })();
}

function jobTable(jobs) {
  if (!jobs.length) return note('No jobs match these filters.');
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table jobs', id: 'jobs' },
      h('thead', {}, h('tr', {},
        ['ID', 'Kind', 'Queue', 'State', 'Attempt', 'Errors', 'Created', 'Due / finished', 'Tenant']
          .map((t, i) => h('th', { scope: 'col', class: i === 0 || i === 4 || i === 5 ? 'num' : null, text: t })))),
      h('tbody', {}, jobs.map((j) => h('tr', { data: { id: j.id, state: j.state } },
        h('td', { class: 'num' }, h('a', { href: '#/jobs/' + j.id, class: 'job-link', text: '#' + j.id })),
        h('td', {}, h('a', { href: '#/jobs/' + j.id, class: 'kind', text: j.kind })),
        h('td', { text: j.queue }),
        h('td', {}, stateBadge(j.state)),
        h('td', { class: 'num', text: j.attempt + ' / ' + j.maxAttempts }),
        h('td', { class: ['num', j.errorCount > 0 ? 'warn' : 'zero'], text: num(j.errorCount) }),
        h('td', {}, time(j.createdAt)),
        h('td', {}, time(LIVE.has(j.state) ? j.runAt : j.finishedAt)),
        h('td', { class: 'muted', text: j.tenant || '—' }))))));
}

export function renderJob(main, route, session, ui) {
  const id = route.path[1];
  if (!/^[1-9][0-9]{0,18}$/.test(id)) {
    replace(main, note('A job id is a positive whole number.', 'error'));
    return;
  }
  let stopped = false;
  // Whether each is shown outlives a reload of the job.
  const payloadShown = { shown: false };
  const outputShown = { shown: false };
  const flash = flashArea();
  const body = h('div', { id: 'job-body' }, h('p', { class: 'loading', text: 'Loading…' }));
  replace(main,
    h('a', { class: 'back', href: '#/jobs', text: '← Jobs' }),
    flash,
    body);

  async function load() {
    let job;
    try {
      job = await api.get('/api/jobs/' + id);
    } catch (e) {
      if (stopped) return;
      replace(body, note(e instanceof ApiError && e.status === 404 ? 'There is no job #' + id + '.' : e.message, 'error'));
      return;
    }
    if (stopped) return;
    // The payload and the output stay out of the page until someone asks for them.
    const payload = job.payload;
    const output = 'output' in job ? { value: job.output } : null;
    delete job.payload;
    delete job.output;
    replace(body, detail(job, payload, output));
    ui.loaded();
  }

  async function act(label, path, done, send = api.post) {
    flash.clear();
    try {
      const result = await send(path);
      flash.show(done + ' Job #' + id + ' is now ' + result.state + '.', 'ok');
    } catch (e) {
      flash.show(label + ' failed: ' + e.message, 'error');
    }
    await load();
  }

  function detail(job, payload, output) {
    const actions = h('div', { class: 'actions', id: 'job-actions' });
    const confirmSlot = h('div', { class: 'confirm-slot' });
    let editSlot = null;
    if (session.canOperate) {
      if (job.state === 'dead') {
        actions.append(actionButton('Retry', () => act('Retry', '/api/jobs/' + id + '/retry', 'Retried.'),
          { id: 'job-retry', class: 'button primary', title: 'Put it back to ready with a fresh attempt budget' }));
      }
      const runNow = runNowButton(job, act);
      if (runNow) actions.append(runNow);
      if (canEdit(job, session)) {
        const editor = jobEditor(job, payload, session, flash, load);
        actions.append(editor.button);
        editSlot = editor.slot;
      }
      if (job.state === 'dead') {
        actions.append(h('button', {
          type: 'button', class: 'button danger-quiet', id: 'job-discard', text: 'Discard',
          on: {
            click: () => replace(confirmSlot, confirmBar(
              'Discard dead job #' + id + ' for good?' + (job.sequenceKey ? ' If it halted sequence ' + job.sequenceKey
                + ', its next job runs.' : ''),
              'Discard', () => act('Discard', '/api/dlq/' + id, 'Discarded.', api.del))),
          },
        }));
      }
      if (LIVE.has(job.state)) {
        actions.append(h('button', {
          type: 'button', class: 'button danger-quiet', id: 'job-cancel', text: 'Cancel job',
          on: {
            click: () => replace(confirmSlot, confirmBar(
              'Cancel job #' + id + '?' + (job.state === 'running' ? ' Its worker is told to stop.' : ''),
              'Cancel job', () => act('Cancel', '/api/jobs/' + id + '/cancel', 'Cancelled.'))),
          },
        }));
      }
    }
    actions.append(actionButton('Refresh', load, { class: 'button quiet', id: 'job-refresh' }));

    return h('article', { class: 'job', data: { id: job.id, state: job.state } },
      h('div', { class: 'page-head' },
        h('div', {},
          h('h1', {}, 'Job #' + job.id, ' ', stateBadge(job.state)),
          h('p', { class: 'subtitle' }, h('span', { class: 'kind', text: job.kind }), ' on queue ',
            h('a', { href: hashOf('jobs', { queue: job.queue }), text: job.queue }))),
        actions),
      confirmSlot,
      editSlot,
      explainLine(job.id),
      waitSection(job, session, flash, load),
      progressSection(job),
      h('div', { class: 'two-col' },
        h('section', { class: 'card' }, h('h2', { text: 'Details' }), facts(job)),
        h('section', { class: 'card' }, h('h2', { text: 'Timeline' }), timeline(job))),
      h('section', { class: 'card', id: 'job-errors' },
        h('h2', {}, 'Errors ', h('span', { class: 'count', text: num(job.errors.length) })),
        errorTable(job.errors)),
      logsSection(job),
      signalsSection(job, session),
      payloadSection(job, payload),
      outputSection(job, output));
  }

  function payloadSection(job, payload) {
    const section = h('section', { class: 'card', id: 'job-payload' }, h('h2', { text: 'Payload' }));
    if (job.payloadEncrypted && payload === undefined) {
      // Stored encrypted and this server has no key for it: say so, and show nothing else (never the ciphertext).
      section.append(h('p', { class: 'muted', id: 'payload-encrypted',
        text: 'Encrypted: this payload is stored encrypted at rest, and this server has no key to read it.' }));
      return section;
    }
    if (job.payloadRedacted || !session.seesPayloads) {
      if (job.payloadEncrypted) {
        section.append(h('p', { class: 'muted', id: 'payload-encrypted', text: 'Encrypted at rest.' }));
      }
      section.append(h('p', { class: 'muted', text: 'Payloads are hidden from the ' + session.role + ' role.' }));
      return section;
    }
    section.append(...revealer('payload', payload, payloadShown,
      'Payloads may hold personal data: shown only on request, version ' + job.payloadVersion
        + (job.payloadEncrypted ? ', encrypted at rest' : '') + '.'));
    if (job.state === 'dead' && canRepair(session)) section.append(payloadEditor(job, payload, flash, load));
    return section;
  }

  /** What the handler recorded (ctx.recordOutput), under the payload's rule; nothing when it recorded none. */
  function outputSection(job, output) {
    if (!output && !job.outputRedacted) return null;
    const section = h('section', { class: 'card', id: 'job-output' }, h('h2', { text: 'Output' }));
    if (job.outputRedacted || !session.seesPayloads) {
      section.append(h('p', { class: 'muted', text: 'Outputs are hidden from the ' + session.role + ' role, as payloads are.' }));
      return section;
    }
    section.append(...revealer('output', output.value, outputShown,
      'Outputs may hold personal data, as payloads may: shown only on request.'));
    return section;
  }

  load();
  return () => {
    stopped = true;
  };
}

/**
 * A "Show NOUN" button and the slot where value appears as indented JSON (text, never markup) while
 * state.shown; the slot is #NOUN, the button #show-NOUN.
 */
function revealer(noun, value, state, hint) {
  const slot = h('div', {});
  const toggle = h('button', { type: 'button', class: 'button', id: 'show-' + noun });
  const render = () => {
    toggle.textContent = (state.shown ? 'Hide ' : 'Show ') + noun;
    toggle.setAttribute('aria-expanded', String(state.shown));
    replace(slot, state.shown
      ? h('pre', { class: 'code', id: noun, text: JSON.stringify(value, null, 2) })
      : h('p', { class: 'muted', text: hint }));
  };
  toggle.addEventListener('click', () => {
    state.shown = !state.shown;
    render();
  });
  render();
  return [h('div', { class: 'actions' }, toggle), slot];
}

function facts(job) {
  const rows = [
    ['Kind', job.kind],
    ['Queue', job.queue],
    ['State', job.state],
    ['Attempt', job.attempt + ' of ' + job.maxAttempts],
    ['Priority', num(job.priority)],
    ['Tenant', job.tenant],
    ['Unique key', job.uniqueKey],
    ['Sequence', job.sequenceKey],
    ['Worker', job.lockedBy],
    ['Payload version', num(job.payloadVersion)],
    ['Dead because', job.deadReason],
  ];
  for (const [key, value] of Object.entries(job.metadata || {})) {
    // Repairs and signals are the timeline's; every other entry is a tag (text).
    if (key === 'docket.workflow' && /^[1-9][0-9]*$/.test(value)) {
      rows.push(['Workflow', h('a', { href: '#/workflows/' + value, id: 'job-workflow', text: 'workflow ' + value })]);
    } else if (key !== 'docket.repairs' && key !== 'docket.signals' && key !== 'docket.edits') {
      rows.push(['Tag: ' + key, typeof value === 'string' ? value : JSON.stringify(value)]);
    }
  }
  return h('dl', { class: 'facts' }, rows.map(([k, v]) => [
    h('dt', { text: k }),
    v instanceof Node ? h('dd', {}, v) : h('dd', { class: v === null || v === undefined || v === '' ? 'muted' : null, text: v === null || v === undefined || v === '' ? '—' : v }),
  ]));
}

function timeline(job) {
  const events = [];
  events.push({ at: job.createdAt, label: 'Enqueued' });
  // A job that finished before its run time never became due: a cancelled scheduled job shows no "Due in 1 min".
  const dueAfterFinish = job.finishedAt && Date.parse(job.runAt) > Date.parse(job.finishedAt);
  if (job.runAt && job.runAt !== job.createdAt && !dueAfterFinish) {
    const retry = job.errors.length > 0 && job.attempt > 0;
    events.push({ at: job.runAt, label: Date.parse(job.runAt) > Date.now() ? (retry ? 'Retry due' : 'Due') : (retry ? 'Retry became due' : 'Became due') });
  }
  // Pushed before the failures: a claim and its failure may fall in the same millisecond, and the sort is stable.
  if (job.attemptedAt) events.push({ at: job.attemptedAt, label: 'Attempt ' + job.attempt + ' claimed' });
  for (const e of job.errors) events.push({ at: e.at, label: 'Attempt ' + e.attempt + ' failed', tone: 'bad' });
  events.push(...repairEvents(job));
  events.push(...editEvents(job));
  events.push(...waitEvents(job));
  if (job.finishedAt) {
    events.push({
      at: job.finishedAt,
      label: { completed: 'Completed', cancelled: 'Cancelled', dead: 'Moved to dead letters' }[job.state] || 'Finished',
      tone: job.state === 'completed' ? 'ok' : job.state === 'dead' ? 'bad' : null,
    });
  }
  events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return h('ol', { class: 'timeline' }, events.map((e) =>
    h('li', { class: e.tone ? 'tone-' + e.tone : null },
      h('span', { class: 'timeline-label', text: e.label }), ' ', time(e.at))));
}

function errorTable(errors) {
  if (!errors.length) return h('p', { class: 'muted', text: 'No failed attempts.' });
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table errors', id: 'errors' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', class: 'num', text: 'Attempt' }),
        h('th', { scope: 'col', text: 'When' }),
        h('th', { scope: 'col', text: 'Worker' }),
        h('th', { scope: 'col', text: 'Error' }))),
      h('tbody', {}, errors.slice().reverse().map((e) => h('tr', { data: { attempt: e.attempt } },
        h('td', { class: 'num', text: num(e.attempt) }),
        h('td', { class: 'nowrap' }, time(e.at)),
        h('td', { class: 'muted', text: e.worker || 'unknown' }),
        h('td', {}, h('pre', { class: 'error-text', text: e.message || '' })))))));
}
