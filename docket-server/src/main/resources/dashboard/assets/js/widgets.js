// Pieces shared by the list pages: keyset pager, inline confirmation, flash messages, name hints.

import { api } from './api.js';
import { h, replace, hashOf } from './dom.js';

/**
 * Keyset pager. The API pages newest first: a page's `next` is the `after` of the following page.
 * The trail of pages visited under one filter lets "Previous" go back without offsets.
 */
const trails = new Map();

export function pager(path, filters, after, next) {
  const key = path + '|' + JSON.stringify(filters);
  let trail = trails.get(key) || [];
  const current = after || '';
  let index = trail.indexOf(current);
  if (index < 0) {
    trail = [current];
    index = 0;
  }
  trails.set(key, trail);
  const previous = index > 0 ? trail[index - 1] : null;
  const go = (target) => {
    if (target === next) {
      trail.length = index + 1;
      trail.push(String(next));
    }
    location.hash = hashOf(path, { ...filters, after: target });
  };
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    previous !== null ? h('button', {
      type: 'button', class: 'button quiet', id: 'page-prev', text: '← Newer', on: { click: () => go(previous) },
    }) : null,
    current !== '' && index > 1 || current !== '' && previous === null
      ? h('a', { class: 'button quiet', id: 'page-first', href: hashOf(path, filters), text: 'Newest' }) : null,
    h('span', { class: 'pager-spacer' }),
    h('button', {
      type: 'button', class: 'button', id: 'page-next', text: 'Older →', disabled: next === null || next === undefined,
      on: { click: () => go(next) },
    }));
}

/** An inline "are you sure" bar in place of a dialog; resolves through onConfirm. */
export function confirmBar(text, confirmLabel, onConfirm, onCancel) {
  const yes = h('button', { type: 'button', class: 'button danger', id: 'confirm-yes', text: confirmLabel });
  const no = h('button', { type: 'button', class: 'button quiet', id: 'confirm-no', text: 'Keep it' });
  const bar = h('div', { class: 'confirm', role: 'alertdialog', 'aria-label': text },
    h('span', { text }), h('span', { class: 'confirm-actions' }, no, yes));
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    no.disabled = true;
    try {
      await onConfirm();
    } finally {
      bar.remove();
    }
  });
  no.addEventListener('click', () => {
    bar.remove();
    if (onCancel) onCancel();
  });
  return bar;
}

/** A status line for the results of actions. */
export function flashArea(id = 'flash') {
  const el = h('div', { class: 'flash', id, role: 'status', 'aria-live': 'polite', hidden: true });
  el.show = (text, kind = 'ok') => {
    el.className = 'flash flash-' + kind;
    el.textContent = text;
    el.hidden = false;
  };
  el.clear = () => {
    el.hidden = true;
    el.textContent = '';
  };
  return el;
}

/** Queue and kind names from /api/stats, for <datalist> hints (best effort). */
export async function knownNames() {
  try {
    const stats = await api.get('/api/stats');
    const queues = new Set();
    const kinds = new Set();
    for (const r of stats.queues || []) {
      queues.add(r.queue);
      kinds.add(r.kind);
    }
    return { queues: [...queues].sort(), kinds: [...kinds].sort(), rows: stats.queues || [] };
  } catch (e) {
    return { queues: [], kinds: [], rows: [] };
  }
}

export function fillDatalist(list, names) {
  replace(list, names.map((n) => h('option', { value: n })));
}

/** A labelled form field. */
export function field(label, control) {
  return h('label', { class: 'field' }, h('span', { class: 'field-label', text: label }), control);
}
