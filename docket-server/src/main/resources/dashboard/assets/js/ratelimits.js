// Rate limits on the overview: every limit in force (at most N starts per period of a kind or a
// queue, cluster-wide), and for operators a form to set one and a button to remove one. The form is
// made once, so the overview's polls never wipe what is being typed; only the table is redrawn.

import { api } from './api.js';
import { h, replace, num, note, actionButton } from './dom.js';
import { field } from './widgets.js';

/** "50 / 1s", "600 / 1m", "3 / 250ms" */
function rate(l) {
  const ms = l.periodMs;
  const unit = ms % 86_400_000 === 0 ? [86_400_000, 'd'] : ms % 3_600_000 === 0 ? [3_600_000, 'h']
    : ms % 60_000 === 0 ? [60_000, 'm'] : ms % 1000 === 0 ? [1000, 's'] : [1, 'ms'];
  return num(l.permits) + ' / ' + ms / unit[0] + unit[1];
}

/** The section: {el, update(limits)}; changes go through the API, then {@code changed()} (the overview polls again). */
export function rateLimitSection(session, flash, changed) {
  const tableEl = h('div', { id: 'rate-limit-table' });
  const form = session.canOperate ? setForm(flash, changed) : null;
  const el = h('section', { id: 'rate-limit-section' },
    h('h2', { text: 'Rate limits' }),
    h('p', { class: 'muted', text: 'At most N job starts per period, cluster-wide, in every window of that length. '
      + 'A limit set here stays in force over what nodes declare in code until it is removed.' }),
    tableEl, form);

  function update(limits) {
    if (!limits.length) {
      replace(tableEl, note('No rate limit. Jobs start as fast as free slots take them.'));
      return;
    }
    replace(tableEl, h('div', { class: 'table-wrap' },
      h('table', { class: 'table rate-limits', id: 'rate-limits' },
        h('thead', {}, h('tr', {},
          ['Scope', 'Name', 'Limit', 'Per tenant', 'Source'].map((t) => h('th', { scope: 'col', text: t })),
          session.canOperate ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: 'Actions' })) : null)),
        h('tbody', {}, limits.map((l) => h('tr', { data: { scope: l.scope, name: l.name } },
          h('td', { text: l.scope }),
          h('td', { text: l.name }),
          h('td', { class: 'num', data: { col: 'limit' }, text: rate(l) }),
          h('td', { text: l.perTenant ? 'yes' : 'no' }),
          h('td', { class: l.edited ? null : 'muted', text: l.edited ? 'edited' : 'declared' }),
          session.canOperate ? h('td', { class: 'actions' }, actionButton('Remove', () => remove(l),
            { class: 'button small', data: { remove: l.scope + ':' + l.name } })) : null))))));
  }

  async function remove(l) {
    flash.clear();
    try {
      await api.del('/api/rate-limits/' + l.scope + '/' + encodeURIComponent(l.name));
      flash.show('The rate limit on ' + l.scope + ' ' + l.name + ' is removed.', 'ok');
    } catch (e) {
      flash.show('Removing the rate limit on ' + l.name + ' failed: ' + e.message, 'error');
    }
    await changed();
  }

  return { el, update };
}

function setForm(flash, changed) {
  const scope = h('select', { id: 'rate-limit-scope' },
    h('option', { value: 'kind', text: 'kind' }), h('option', { value: 'queue', text: 'queue' }));
  const name = h('input', { id: 'rate-limit-name', type: 'text', required: true, maxlength: 255 });
  const permits = h('input', { id: 'rate-limit-permits', type: 'number', min: 1, max: 1000000, step: 1, required: true });
  const period = h('input', { id: 'rate-limit-period', type: 'text', required: true, placeholder: '1s', size: 6 });
  const perTenant = h('input', { id: 'rate-limit-per-tenant', type: 'checkbox' });
  const create = h('input', { id: 'rate-limit-create', type: 'checkbox' });
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'rate-limit-set', text: 'Set limit' });
  const form = h('form', { class: 'filters', id: 'rate-limit-form', novalidate: true },
    field('Scope', scope), field('Name', name), field('Permits', permits), field('Per', period),
    h('label', { class: 'inline' }, perTenant, ' per tenant'),
    h('label', { class: 'inline', title: 'Limit a kind or queue that has no jobs, no worker and no limit yet' },
      create, ' create'),
    submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    flash.clear();
    submit.disabled = true;
    const what = scope.value + ' ' + name.value;
    try {
      // A blank field (or text a number input cannot hold, which reads as blank) is not 0: Number('') is.
      const raw = permits.value.trim();
      const body = { permits: raw === '' ? NaN : Number(raw), period: period.value.trim(), perTenant: perTenant.checked };
      if (!Number.isInteger(body.permits) || body.permits < 1 || body.permits > 1000000) {
        throw new Error('permits must be a whole number from 1 to 1000000' + (raw === '' ? ' (the field is empty)' : ', was ' + raw));
      }
      await api.put('/api/rate-limits/' + scope.value + '/' + encodeURIComponent(name.value)
        + (create.checked ? '?create=true' : ''), body);
      flash.show('Rate limit on ' + what + ': ' + body.permits + ' per ' + body.period + '.', 'ok');
    } catch (e) {
      flash.show('Setting the rate limit on ' + what + ' failed: ' + e.message, 'error');
    } finally {
      submit.disabled = false;
    }
    await changed();
  });
  return form;
}
