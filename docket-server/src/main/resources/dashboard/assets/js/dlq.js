// Dead letters: the dead-letter table by kind, error text and error signature (one broken handler,
// one group), retry one or the selected ones, replay everything matching a filter at a bounded rate
// with its progress, and patch the payloads of a whole group before replaying it.

import { api, qs } from './api.js';
import { h, replace, num, time, paramsOf, hashOf, note, actionButton } from './dom.js';
import { pager, confirmBar, flashArea, knownNames, fillDatalist, field } from './widgets.js';
import { canRepair, groupPatchPanel } from './repair.js';

const REPLAY_POLL_MS = 1000;

export function renderDeadLetters(main, route, session, ui) {
  const filters = paramsOf(route, ['kind', 'errorContains', 'signature']);
  const after = route.params.get('after') || '';
  let stopped = false;
  let replayTimer = null;
  const selected = new Set();

  const kind = h('input', { name: 'kind', id: 'dlq-kind', list: 'dlq-kind-names', value: filters.kind, placeholder: 'any', autocomplete: 'off' });
  const error = h('input', { name: 'errorContains', id: 'dlq-error', class: 'wide', value: filters.errorContains, placeholder: 'text in the error or reason', autocomplete: 'off' });
  const kindNames = h('datalist', { id: 'dlq-kind-names' });
  const form = h('form', { class: 'filters', id: 'dlq-filters' },
    field('Kind', kind), field('Error contains', error),
    h('div', { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'button primary', id: 'dlq-apply', text: 'Filter' }),
      h('a', { class: 'button quiet', href: '#/dlq', id: 'dlq-clear', text: 'Clear' })),
    kindNames);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = hashOf('dlq', { kind: kind.value.trim(), errorContains: error.value.trim(), signature: filters.signature });
  });

  const flash = flashArea();
  const groups = h('div', { class: 'chips', id: 'dlq-groups' });
  const errorGroups = h('div', { class: 'chips', id: 'dlq-error-groups' });
  const groupPanel = h('section', { class: 'card group', id: 'dlq-group', hidden: !filters.signature });
  const replayPanel = h('section', { class: 'card replay', id: 'replay' });
  const results = h('div', { id: 'dlq-results' }, h('p', { class: 'loading', text: 'Loading…' }));
  const bulk = h('div', { class: 'bulk', id: 'dlq-bulk' });

  replace(main,
    h('div', { class: 'page-head' }, h('h1', { text: 'Dead letters' })),
    groups,
    errorGroups,
    form,
    flash,
    groupPanel,
    session.canOperate ? replayPanel : null,
    bulk,
    results);

  knownNames().then(({ rows }) => {
    if (stopped) return;
    const byKind = new Map();
    for (const r of rows) {
      if (!r.dead) continue;
      const g = byKind.get(r.kind) || { dead: 0, recent: 0 };
      g.dead += r.dead;
      g.recent += r.deadLast24h;
      byKind.set(r.kind, g);
    }
    fillDatalist(kindNames, [...byKind.keys()].sort());
    if (!byKind.size) return;
    replace(groups, h('span', { class: 'chips-label', text: 'By kind' }),
      [...byKind.entries()].sort((a, b) => b[1].dead - a[1].dead).map(([k, g]) =>
        h('a', {
          class: ['chip', filters.kind === k && 'active'], href: hashOf('dlq', { ...filters, kind: k, after: '' }),
          title: num(g.recent) + ' died in the last 24 h',
        }, h('span', { text: k }), h('span', { class: 'chip-count', text: num(g.dead) }))));
  });

  // The same failure usually hits many jobs: group them by error signature (the first line of the
  // last error with numbers, ids and quoted values stripped). A chip shows the signature cut short;
  // its title and, once chosen, the group panel show it whole.
  api.get('/api/dlq/groups' + qs({ kind: filters.kind, limit: 12 })).then(({ groups: rows }) => {
    if (stopped) return;
    const chosen = rows.find((g) => g.signature === filters.signature && (!filters.kind || g.kind === filters.kind));
    if (filters.signature) renderGroup(chosen);
    if (!rows.length) return;
    replace(errorGroups, h('span', { class: 'chips-label', text: 'By error' }),
      rows.map((g) => {
        const short = g.signature.length > 90 ? g.signature.slice(0, 90) + '…' : g.signature;
        return h('a', {
          class: ['chip', 'chip-error', g === chosen && 'active'],
          href: hashOf('dlq', { kind: g.kind, signature: g.signature, after: '' }),
          title: g.kind + ': ' + g.signature + '\ne.g. ' + g.error + '\n' + num(g.count) + ' jobs, last died ' + g.lastDiedAt,
          data: { signature: g.signature },
        }, h('span', { text: (filters.kind ? '' : g.kind + ' · ') + short }), h('span', { class: 'chip-count', text: num(g.count) }));
      }));
  }).catch(() => {});

  /** The chosen group in full: its signature wrapped, an example error, and the patch form for repairers. */
  function renderGroup(g) {
    groupPanel.hidden = false;
    replace(groupPanel,
      h('div', { class: 'group-head' },
        h('h2', { text: 'Error group' }),
        h('a', { class: 'button quiet small', id: 'dlq-group-clear', href: hashOf('dlq', { ...filters, signature: '', after: '' }), text: 'Any error' })),
      h('dl', { class: 'facts' },
        h('dt', { text: 'Kind' }), h('dd', { text: filters.kind || (g ? g.kind : 'any') }),
        h('dt', { text: 'Signature' }), h('dd', {}, h('code', { class: 'signature', id: 'dlq-signature', text: filters.signature })),
        g ? [h('dt', { text: 'Example' }), h('dd', {}, h('code', { class: 'signature', text: g.error })),
          h('dt', { text: 'Jobs' }), h('dd', {}, num(g.count) + ', the last died ', time(g.lastDiedAt))] : null),
      canRepair(session) && filters.kind ? groupPatchPanel({ kind: filters.kind, signature: filters.signature }, flash, loadList)
        : canRepair(session) ? h('p', { class: 'muted', text: 'Choose the group’s kind to patch its payloads.' }) : null);
  }

  if (session.canOperate) renderReplay();

  function renderReplay() {
    const rate = h('input', { type: 'number', id: 'replay-rate', min: 1, max: 10000, step: 1, value: 100, required: true });
    const status = h('div', { class: 'replay-status', id: 'replay-status' });
    const confirmSlot = h('div', {});
    const what = filters.kind || filters.errorContains || filters.signature
      ? 'every dead job' + (filters.kind ? ' of kind “' + filters.kind + '”' : '')
        + (filters.signature ? ' in the error group shown above' : '')
        + (filters.errorContains ? ' whose error contains “' + filters.errorContains + '”' : '')
      : 'every dead job (no filter)';
    const start = h('button', {
      type: 'button', class: 'button', id: 'replay-start', text: 'Replay matching…',
      on: {
        click: () => {
          const perSecond = Number(rate.value);
          if (!Number.isInteger(perSecond) || perSecond < 1 || perSecond > 10000) {
            flash.show('The rate is a whole number of jobs per second, 1 to 10,000.', 'error');
            return;
          }
          replace(confirmSlot, confirmBar('Replay ' + what + ' at ' + num(perSecond) + ' jobs/s?', 'Start replay',
            () => startReplay(perSecond, status)));
        },
      },
    });
    replace(replayPanel,
      h('div', { class: 'replay-head' },
        h('div', {},
          h('h2', { text: 'Replay matching' }),
          h('p', { class: 'muted', text: 'Puts ' + what + ' back to ready, a bounded number per second so the queue is not flooded.' })),
        h('div', { class: 'replay-controls' }, field('Jobs per second', rate), start)),
      confirmSlot,
      status);
  }

  async function startReplay(perSecond, status) {
    flash.clear();
    try {
      const replay = await api.post('/api/dlq/retry', {
        kind: filters.kind || null, errorContains: filters.errorContains || null, signature: filters.signature || null,
        ratePerSecond: perSecond,
      });
      showProgress(replay, status);
      pollReplay(replay.id, status);
    } catch (e) {
      flash.show('Replay failed to start: ' + e.message, 'error');
    }
  }

  function pollReplay(id, status) {
    replayTimer = setTimeout(async () => {
      if (stopped) return;
      try {
        const replay = await api.get('/api/dlq/replays/' + id);
        if (stopped) return;
        showProgress(replay, status);
        if (replay.state === 'running') pollReplay(id, status);
        else loadList();
      } catch (e) {
        if (!stopped) status.textContent = 'Progress unavailable: ' + e.message;
      }
    }, REPLAY_POLL_MS);
  }

  function showProgress(replay, status) {
    const counting = replay.state === 'running' && replay.matched === 0 && replay.replayed === 0;
    const bar = h('progress', { id: 'replay-progress', max: Math.max(replay.matched, 1), value: replay.replayed });
    const text = counting ? 'Finding matching jobs…'
      : num(replay.replayed) + ' of ' + num(replay.matched) + ' replayed · '
        + (replay.state === 'running' ? 'running at ' + num(replay.ratePerSecond) + '/s' : replay.state);
    replace(status, bar, h('span', { class: 'replay-text', id: 'replay-text', data: { state: replay.state }, text }));
  }

  async function retry(ids) {
    flash.clear();
    let ok = 0;
    const failed = [];
    for (const id of ids) {
      try {
        await api.post('/api/dlq/' + id + '/retry');
        ok++;
      } catch (e) {
        failed.push('#' + id + ': ' + e.message);
      }
    }
    selected.clear();
    if (failed.length) flash.show('Retried ' + num(ok) + '; not retried: ' + failed.join('; '), 'error');
    else flash.show(ok === 1 ? 'Job #' + ids[0] + ' is back to ready.' : num(ok) + ' jobs are back to ready.', 'ok');
    await loadList();
  }

  function renderBulk() {
    if (!session.canOperate) return;
    if (!selected.size) {
      replace(bulk);
      return;
    }
    replace(bulk,
      h('span', { text: num(selected.size) + ' selected' }),
      actionButton('Retry selected', () => retry([...selected]), { id: 'dlq-retry-selected', class: 'button primary' }));
  }

  async function loadList() {
    try {
      const page = await api.get('/api/dlq' + qs({ ...filters, after }));
      if (stopped) return;
      selected.clear();
      renderBulk();
      replace(results, deadTable(page.jobs), pager('dlq', filters, after, page.next));
      ui.loaded();
    } catch (e) {
      if (!stopped) replace(results, note(e.message, 'error'));
    }
  }

  function deadTable(jobs) {
    if (!jobs.length) {
      return note(filters.kind || filters.errorContains || filters.signature ? 'No dead jobs match.' : 'The dead-letter table is empty.');
    }
    const head = ['ID', 'Kind', 'Queue', 'Attempts', 'Died', 'Reason'];
    return h('div', { class: 'table-wrap' },
      h('table', { class: 'table dead', id: 'dead-jobs' },
        h('thead', {}, h('tr', {},
          session.canOperate ? h('th', { scope: 'col', class: 'check' }, selectAll(jobs)) : null,
          head.map((t, i) => h('th', { scope: 'col', class: i === 0 || i === 3 ? 'num' : null, text: t })),
          session.canOperate ? h('th', { scope: 'col' }) : null)),
        h('tbody', {}, jobs.map((j) => h('tr', { data: { id: j.id } },
          session.canOperate ? h('td', { class: 'check' }, checkbox(j.id)) : null,
          h('td', { class: 'num' }, h('a', { href: '#/jobs/' + j.id, text: '#' + j.id })),
          h('td', {}, h('a', { href: '#/jobs/' + j.id, class: 'kind', text: j.kind })),
          h('td', { text: j.queue }),
          h('td', { class: 'num', text: j.attempt + ' / ' + j.maxAttempts }),
          h('td', { class: 'nowrap' }, time(j.finishedAt)),
          h('td', { class: 'reason', title: j.deadReason || '', text: j.deadReason || '—' }),
          session.canOperate ? h('td', { class: 'row-actions' },
            actionButton('Retry', () => retry([j.id]), { class: 'button small', data: { retry: j.id } })) : null)))));
  }

  function checkbox(id) {
    const box = h('input', { type: 'checkbox', 'aria-label': 'Select job #' + id, data: { select: id } });
    box.addEventListener('change', () => {
      if (box.checked) selected.add(id);
      else selected.delete(id);
      renderBulk();
    });
    return box;
  }

  function selectAll(jobs) {
    const box = h('input', { type: 'checkbox', 'aria-label': 'Select all on this page', id: 'dlq-select-all' });
    box.addEventListener('change', () => {
      for (const el of results.querySelectorAll('input[data-select]')) {
        el.checked = box.checked;
        const id = Number(el.dataset.select);
        if (box.checked) selected.add(id);
        else selected.delete(id);
      }
      renderBulk();
    });
    return box;
  }

  loadList();
  return () => {
    stopped = true;
    clearTimeout(replayTimer);
  };
}
