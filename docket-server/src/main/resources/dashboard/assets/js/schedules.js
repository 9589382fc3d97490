// Schedules: every periodic job (GET /api/schedules), those stored at run time and those declared in code
// (read-only), each with its next slots in its own time zone and the viewer's, its last runs with their
// jobs' outcome (linked), and who changed it last. Roles that operate get a form to create or edit a stored
// schedule and buttons to pause, resume and delete one. The form is made once, so the polls that redraw the
// table never wipe what is being typed.

import { api } from './api.js';
import { h, replace, note, time, stateBadge } from './dom.js';
import { confirmBar, field, flashArea } from './widgets.js';

const POLL_MS = 10000;
const VIEWER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';
const viewerFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function renderSchedules(main, route, session, ui) {
  let stopped = false;
  let timer = null;
  const flash = flashArea('schedule-flash');
  const body = h('div', { id: 'schedules-body' }, h('p', { class: 'loading', text: 'Loading…' }));
  const form = session.canOperate ? scheduleForm(flash, () => load()) : null;

  async function load() {
    clearTimeout(timer);
    try {
      const { schedules } = await api.get('/api/schedules');
      if (stopped) return;
      replace(body, schedules.length ? table(schedules) : note('No schedule. Declare one in code (PeriodicJob) '
        + (session.canOperate ? 'or create one below.' : 'or ask an operator to create one.')));
      ui.banner(null);
      ui.loaded();
    } catch (e) {
      if (stopped) return;
      ui.banner('Schedules could not be loaded (' + e.message + '); retrying.');
    }
    if (!stopped) timer = setTimeout(load, POLL_MS);
  }

  async function act(s, verb, path, method) {
    flash.clear();
    try {
      await (method === 'delete' ? api.del(path) : api.post(path));
      flash.show('Schedule ' + s.name + ' ' + verb + '.', 'ok');
    } catch (e) {
      flash.show('The schedule ' + s.name + ' could not be ' + verb + ': ' + e.message, 'error');
    }
    await load();
  }

  function actions(s) {
    if (!s.editable) return h('span', { class: 'muted', text: 'declared in code' });
    if (!session.canOperate) return null;
    const path = '/api/schedules/' + encodeURIComponent(s.name);
    const cell = h('span', { class: 'actions' });
    cell.append(
      h('button', { type: 'button', class: 'button small', data: { edit: s.name }, text: 'Edit',
        on: { click: () => form.edit(s) } }),
      s.paused
        ? h('button', { type: 'button', class: 'button small', data: { resume: s.name }, text: 'Resume',
          on: { click: () => act(s, 'resumed', path + '/resume') } })
        : h('button', { type: 'button', class: 'button small', data: { pause: s.name }, text: 'Pause',
          on: { click: () => act(s, 'paused', path + '/pause') } }),
      h('button', { type: 'button', class: 'button small danger', data: { delete: s.name }, text: 'Delete',
        on: { click: () => cell.append(confirmBar('Delete schedule ' + s.name + '? The jobs it enqueued stay.', 'Delete',
          () => act(s, 'deleted', path, 'delete'))) } }));
    return cell;
  }

  function table(schedules) {
    const head = ['Schedule', 'When', 'Kind', 'Next slots', 'Last runs', 'Changed', ''];
    return h('div', { class: 'table-wrap' },
      h('table', { class: 'table', id: 'schedule-list' },
        h('thead', {}, h('tr', {}, head.map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, schedules.map((s) => h('tr', { data: { schedule: s.name, origin: s.origin, paused: s.paused } },
          h('td', { data: { col: 'name' } },
            h('div', { class: 'mono', text: s.name }),
            h('span', { class: ['badge', s.origin === 'code' ? 'state-scheduled' : 'state-ready'], data: { col: 'origin' },
              text: s.origin === 'code' ? 'code' : 'runtime' }),
            s.paused ? h('span', { class: ['badge', 'severity-warning'], data: { col: 'paused' }, text: 'paused' }) : null),
          h('td', { data: { col: 'cron' } }, h('div', { class: 'mono', text: s.cron }),
            h('div', { class: 'muted', text: s.zone + (s.catchUp === 'latest' ? ' · catch up: latest' : '') })),
          h('td', { data: { col: 'kind' } }, h('div', { text: s.kind }),
            h('div', { class: 'muted', text: [s.queue && 'queue ' + s.queue, s.priority != null && 'priority ' + s.priority,
              s.maxAttempts != null && s.maxAttempts + ' attempts'].filter(Boolean).join(' · ') }),
            s.kindServed ? null : h('span', { class: ['badge', 'severity-warning'], data: { col: 'unserved' },
              title: 'No live worker serves this kind: its jobs wait until one does', text: 'no worker' })),
          h('td', { data: { col: 'next' } }, s.nextSlots.length ? h('ul', { class: 'slots' }, s.nextSlots.map((slot) =>
            h('li', { data: { at: slot.at } },
              h('span', { class: 'mono', data: { zone: 'schedule' }, text: local(slot.local) + ' ' + s.zone }),
              h('br'),
              h('span', { class: 'muted', data: { zone: 'viewer' }, text: viewerFormat.format(new Date(slot.at)) + ' ' + VIEWER_ZONE }))))
            : h('span', { class: 'muted', text: s.paused ? 'paused' : 'none' })),
          h('td', { data: { col: 'runs' } }, s.lastRuns.length ? h('ul', { class: 'runs' }, s.lastRuns.map((r) =>
            h('li', { data: { job: r.jobId } },
              h('a', { href: '#/jobs/' + r.jobId, text: '#' + r.jobId }), ' ', stateBadge(r.state), ' ',
              h('span', { class: 'muted', text: local(r.slot) }))))
            : h('span', { class: 'muted', text: 'none yet' })),
          h('td', { data: { col: 'changed' } }, h('div', { data: { col: 'changed-by' }, text: s.updatedBy }), time(s.updatedAt)),
          h('td', { data: { col: 'actions' } }, actions(s)))))));
  }

  replace(main,
    h('div', { class: 'page-head' },
      h('div', {},
        h('h1', { text: 'Schedules' }),
        h('p', { class: 'subtitle', text: 'Periodic jobs: one job per slot across the cluster, enqueued by the maintenance '
          + 'leader. Stored ones change here from the leader\'s next round; those declared in code change in the code.' }))),
    flash,
    h('section', { class: 'card' }, h('h2', { text: 'All schedules' }), body),
    form ? form.el : null);
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** "2026-11-29T03:00+01:00" as "2026-11-29 03:00". */
function local(iso) {
  return String(iso).replace('T', ' ').replace(/(:\d\d)(:00)?(\.\d+)?([+-]\d\d:\d\d|Z)$/, '$1');
}

/** The create/edit form: {el, edit(schedule)}. */
function scheduleForm(flash, changed) {
  let editing = null;
  const title = h('h2', { id: 'schedule-form-title', text: 'New schedule' });
  const name = h('input', { id: 'schedule-name', type: 'text', required: true, maxlength: 128, placeholder: 'nightly-report' });
  const cron = h('input', { id: 'schedule-cron', type: 'text', required: true, maxlength: 200, placeholder: '0 3 * * *' });
  const zone = h('input', { id: 'schedule-zone', type: 'text', maxlength: 64, value: 'UTC', placeholder: 'Europe/Berlin' });
  const kind = h('input', { id: 'schedule-kind', type: 'text', required: true, maxlength: 255 });
  const payload = h('textarea', { id: 'schedule-payload', rows: 3, placeholder: '{}' });
  const queue = h('input', { id: 'schedule-queue', type: 'text', maxlength: 128, placeholder: 'the kind\'s' });
  const priority = h('input', { id: 'schedule-priority', type: 'number', min: -32768, max: 32767, step: 1 });
  const maxAttempts = h('input', { id: 'schedule-max-attempts', type: 'number', min: 1, step: 1 });
  const catchUp = h('select', { id: 'schedule-catch-up' },
    h('option', { value: 'all', text: 'every missed slot' }), h('option', { value: 'latest', text: 'only the latest' }));
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'schedule-submit', text: 'Create schedule' });
  const cancel = h('button', { type: 'button', class: 'button quiet', id: 'schedule-cancel', text: 'Cancel', hidden: true });
  const form = h('form', { class: 'filters', id: 'schedule-form', novalidate: true },
    field('Name', name), field('Cron', cron), field('Time zone', zone), field('Kind', kind), field('Queue', queue),
    field('Priority', priority), field('Max attempts', maxAttempts), field('Missed slots', catchUp),
    field('Payload (JSON)', payload), submit, cancel);
  const el = h('section', { class: 'card', id: 'schedule-form-section' }, title, form);

  function reset() {
    editing = null;
    form.reset();
    zone.value = 'UTC';
    name.disabled = false;
    title.textContent = 'New schedule';
    submit.textContent = 'Create schedule';
    cancel.hidden = true;
  }

  function number(input, label) {
    const raw = input.value.trim();
    if (raw === '') return null;
    const n = Number(raw);
    if (!Number.isInteger(n)) throw new Error(label + ' must be a whole number, was ' + raw);
    return n;
  }

  cancel.addEventListener('click', reset);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    flash.clear();
    submit.disabled = true;
    const target = editing ? editing.name : name.value.trim();
    try {
      let parsed = null;
      if (payload.value.trim() !== '') {
        try {
          parsed = JSON.parse(payload.value);
        } catch (e) {
          throw new Error('the payload is not valid JSON');
        }
      }
      const body = { cron: cron.value.trim(), zone: zone.value.trim() || 'UTC', kind: kind.value.trim(), payload: parsed,
        queue: queue.value.trim() || null, priority: number(priority, 'priority'),
        maxAttempts: number(maxAttempts, 'max attempts'), catchUp: catchUp.value };
      const answer = editing
        ? await api.put('/api/schedules/' + encodeURIComponent(target), body)
        : await api.post('/api/schedules', { name: target, ...body });
      const warnings = answer.warnings && answer.warnings.length ? ' Warning: ' + answer.warnings.join('; ') + '.' : '';
      flash.show('Schedule ' + target + (editing ? ' saved.' : ' created.') + warnings, warnings ? 'warn' : 'ok');
      reset();
    } catch (e) {
      flash.show('The schedule ' + target + ' could not be ' + (editing ? 'saved' : 'created') + ': ' + e.message, 'error');
    } finally {
      submit.disabled = false;
    }
    await changed();
  });

  return {
    el,
    edit(s) {
      editing = s;
      title.textContent = 'Edit schedule ' + s.name;
      submit.textContent = 'Save changes';
      cancel.hidden = false;
      name.value = s.name;
      name.disabled = true;
      cron.value = s.cron;
      zone.value = s.zone;
      kind.value = s.kind;
      payload.value = s.payload === undefined || s.payload === null ? '' : JSON.stringify(s.payload, null, 2);
      queue.value = s.queue || '';
      priority.value = s.priority == null ? '' : String(s.priority);
      maxAttempts.value = s.maxAttempts == null ? '' : String(s.maxAttempts);
      catchUp.value = s.catchUp;
      el.scrollIntoView({ block: 'start' });
      cron.focus();
    },
  };
}
