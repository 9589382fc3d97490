// DOM building and formatting. Every piece of data reaches the page as a text node or an
// attribute value: nothing here parses HTML, so nothing a job carries can become markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Creates an element. attrs: `class`, `text` (textContent), `on` ({event: handler}),
 * `data` ({key: value} to data-*), and any other attribute (set with setAttribute; `style` and
 * `on*` attributes are refused, the CSP forbids them anyway). Children: nodes, strings (as text),
 * null/false (skipped) or arrays of these.
 */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** Like h(), for SVG elements. */
export function svg(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') {
      el.textContent = String(value);
    } else if (key === 'class') {
      el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (key === 'on') {
      for (const [event, handler] of Object.entries(value)) el.addEventListener(event, handler);
    } else if (key === 'data') {
      for (const [k, v] of Object.entries(value)) {
        if (v !== undefined && v !== null) el.dataset[k] = String(v);
      }
    } else if (key === 'style' || key.toLowerCase().startsWith('on')) {
      throw new Error('refusing attribute ' + key);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces all children of el. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** 12,345 (or an em dash for null). */
export function num(n) {
  return n === null || n === undefined || Number.isNaN(n) ? '—' : integer.format(n);
}

/** 0.5, 12.3, 1,234 */
export function dec(n) {
  return n === null || n === undefined || Number.isNaN(n) ? '—' : decimal.format(n);
}

/** A duration in seconds as "850 ms", "12 s", "4 min", "3.5 h", "2 d". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return '—';
  const s = Math.abs(seconds);
  if (s < 1) return integer.format(s * 1000) + ' ms';
  if (s < 60) return decimal.format(s < 10 ? s : Math.round(s)) + ' s';
  if (s < 3600) return integer.format(Math.round(s / 60)) + ' min';
  if (s < 86400) return decimal.format(s / 3600) + ' h';
  return decimal.format(s / 86400) + ' d';
}

/** Milliseconds as a duration ("—" for null). */
export function millis(ms) {
  return ms === null || ms === undefined ? '—' : duration(ms / 1000);
}

/** "just now", "3 s ago", "in 5 min", relative to the browser's now. */
export function relative(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '—';
  const seconds = (t - now) / 1000;
  if (Math.abs(seconds) < 1) return 'just now';
  const s = Math.abs(seconds);
  let text;
  if (s < 60) text = Math.round(s) + ' s';
  else if (s < 3600) text = Math.round(s / 60) + ' min';
  else if (s < 86400) text = decimal.format(s / 3600) + ' h';
  else text = decimal.format(s / 86400) + ' d';
  return seconds < 0 ? text + ' ago' : 'in ' + text;
}

/** A <time> element showing a relative time, the ISO time in its title; kept fresh by tickTimes(). */
export function time(iso) {
  if (!iso) return h('span', { class: 'muted', text: '—' });
  return h('time', { datetime: iso, title: iso, class: 'rel', text: relative(iso) });
}

/** Refreshes every relative time on the page. */
export function tickTimes() {
  const now = Date.now();
  for (const el of document.querySelectorAll('time.rel')) {
    el.textContent = relative(el.getAttribute('datetime'), now);
  }
}

/** A state badge: scheduled, ready, running, waiting, completed, cancelled or dead. */
export function stateBadge(state) {
  return h('span', { class: ['badge', 'state-' + state], text: state });
}

/** Reads #/route?query into {path: ['jobs', '12'], params: URLSearchParams}. */
export function parseHash(hash) {
  const raw = (hash || '').replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const path = (q < 0 ? raw : raw.slice(0, q)).split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  return { path, params };
}

/** Builds "#/jobs?state=dead" from a path and the non-empty params. */
export function hashOf(path, params = {}) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return '#/' + path + (s ? '?' + s : '');
}

/** The route's parameters of these names, '' for each one absent: what hashOf wrote, read back. */
export function paramsOf(route, names) {
  return Object.fromEntries(names.map((name) => [name, route.params.get(name) || '']));
}

/** A small message box for empty states and errors. */
export function note(text, kind = 'info') {
  return h('p', { class: ['note', 'note-' + kind], text });
}

/** A button that runs an async action, disabled while it runs. */
export function actionButton(label, action, attrs = {}) {
  const button = h('button', { type: 'button', class: attrs.class || 'button', ...attrs, text: label });
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    try {
      await action(button);
    } finally {
      if (button.isConnected) button.disabled = false;
    }
  });
  return button;
}
