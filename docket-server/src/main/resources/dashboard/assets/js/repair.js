// Payload repairs of dead jobs, for roles that see payloads (operator, admin): edit one job's
// payload on its page, or apply a JSON merge patch (RFC 7386) to a whole group (kind and error
// signature) on the dead-letter page, with a dry run first. The server records each repair in the
// job (metadata "docket.repairs": who, when, how), which the job's timeline shows.

import { api } from './api.js';
import { h, replace, num } from './dom.js';
import { confirmBar, field } from './widgets.js';

/** Whether this session may repair payloads: it must both operate and see payloads. */
export function canRepair(session) {
  return Boolean(session.canOperate && session.seesPayloads);
}

/**
 * Parses the text of a textarea as JSON: { value }, or null after showing in the flash area what to fix
 * (a wrapper, because null, false and 0 are JSON values too).
 */
function parseJson(text, what, flash) {
  flash.clear();
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    flash.show(what + ' is not valid JSON: ' + e.message, 'error');
    return null;
  }
}

/** The repairs recorded in a job's metadata, oldest first, as timeline events. */
export function repairEvents(job) {
  const repairs = (job.metadata && job.metadata['docket.repairs']) || [];
  return Array.isArray(repairs) ? repairs.map((r) => ({ at: r.at, label: 'Payload repaired (' + r.how + ') by ' + r.by, tone: 'ok' })) : [];
}

/** "Edit payload" for a dead job: a textarea with the payload, saved with PUT /api/dlq/{id}/payload. */
export function payloadEditor(job, payload, flash, onSaved) {
  const slot = h('div', { id: 'payload-editor' });
  const open = h('button', {
    type: 'button', class: 'button', id: 'edit-payload', text: 'Edit payload',
    title: 'Repair the payload before replaying the job; the change is recorded in the job',
    on: { click: () => edit() },
  });
  function edit() {
    const text = h('textarea', { id: 'payload-text', class: 'code', rows: 12, spellcheck: 'false', 'aria-label': 'Payload (JSON)' });
    text.value = JSON.stringify(payload, null, 2);
    const save = h('button', {
      type: 'button', class: 'button primary', id: 'save-payload', text: 'Save payload',
      on: {
        click: async () => {
          const parsed = parseJson(text.value, 'The payload', flash);
          if (!parsed) return;
          save.disabled = true;
          try {
            const result = await api.put('/api/dlq/' + job.id + '/payload', { payload: parsed.value });
            flash.show('Payload of job #' + job.id + ' repaired by ' + result.repairedBy + '. Retry the job to run it.', 'ok');
            await onSaved();
          } catch (e) {
            flash.show('The payload was not saved: ' + e.message, 'error');
            save.disabled = false;
          }
        },
      },
    });
    const cancel = h('button', { type: 'button', class: 'button quiet', id: 'cancel-payload', text: 'Cancel', on: { click: () => replace(slot) } });
    replace(slot, text, h('div', { class: 'actions' }, save, cancel));
    text.focus();
  }
  return h('div', { class: 'repair' }, h('div', { class: 'actions' }, open), slot);
}

/** "Patch this group": a merge patch applied to every dead job of one kind and signature, dry run first. */
export function groupPatchPanel(group, flash, onDone) {
  const patch = h('textarea', {
    id: 'patch-text', class: 'code', rows: 5, spellcheck: 'false', 'aria-label': 'Merge patch (JSON object)',
    placeholder: '{"currency": "EUR", "obsoleteField": null}',
  });
  const max = h('input', { type: 'number', id: 'patch-max', min: 1, max: 10000, step: 1, value: 1000, required: true });
  const confirmSlot = h('div', {});
  async function run(dryRun) {
    const parsed = parseJson(patch.value, 'The patch', flash);
    if (!parsed) return;
    try {
      const r = await api.post('/api/dlq/repair', {
        kind: group.kind, signature: group.signature, mergePatch: parsed.value, max: Number(max.value), dryRun,
      });
      flash.show(dryRun
        ? 'Dry run: the patch would change ' + num(r.changed.length) + ' of ' + num(r.matched) + ' jobs.'
        : 'Patched ' + num(r.changed.length) + ' of ' + num(r.matched) + ' jobs. Replay them with “Replay matching”.', 'ok');
      if (!dryRun) await onDone();
    } catch (e) {
      flash.show('The patch was not applied: ' + e.message, 'error');
    }
  }
  const dry = h('button', { type: 'button', class: 'button', id: 'patch-dry-run', text: 'Dry run', on: { click: () => run(true) } });
  const apply = h('button', {
    type: 'button', class: 'button primary', id: 'patch-apply', text: 'Apply patch…',
    on: {
      click: () => replace(confirmSlot, confirmBar('Patch the payload of every dead job in this group?', 'Apply patch',
        () => run(false))),
    },
  });
  return h('div', { class: 'patch', id: 'group-patch' },
    h('h3', { text: 'Patch this group' }),
    h('p', { class: 'muted', text: 'A JSON merge patch (RFC 7386): fields it names are set, fields set to null are removed, '
      + 'nested objects are merged. All or nothing; each changed job records who patched it.' }),
    field('Merge patch', patch),
    h('div', { class: 'actions' }, field('At most', max), dry, apply),
    confirmSlot);
}
