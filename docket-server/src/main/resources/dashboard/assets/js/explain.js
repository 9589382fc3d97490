// "Why is this job not running?" on the job page: one line from GET /api/jobs/{id}/explain, with
// every reason in its title and, when there are several, listed under it.

import { api } from './api.js';
import { h, replace } from './dom.js';

/** An element that fills itself with the job's explanation (or stays quiet if it cannot be had). */
export function explainLine(id) {
  const line = h('section', { class: 'explain', id: 'job-explain', 'aria-live': 'polite' },
    h('span', { class: 'muted', text: 'Why: …' }));
  api.get('/api/jobs/' + id + '/explain').then((e) => {
    const [first, ...more] = e.reasons;
    replace(line,
      h('p', { class: 'explain-line', data: { code: first.code } },
        h('strong', { text: e.state === 'running' || first.code === 'finished' ? 'Now: ' : 'Why it is not running: ' }),
        first.message),
      more.length ? h('ul', { class: 'explain-more' }, more.map((r) => h('li', { data: { code: r.code }, text: r.message }))) : null);
  }).catch((err) => {
    replace(line, h('span', { class: 'muted', text: 'Why: unknown (' + err.message + ')' }));
  });
  return line;
}
