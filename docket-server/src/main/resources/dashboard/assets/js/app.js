// Boot and routing: hash routes (ROUTES below: #/overview, #/jobs, #/jobs/ID, #/dlq, #/workers, #/schedules, #/doctor,
// #/databases, #/workflows/ID), one view at a time.
// A view is a function (main, route, session) that renders into main and may return a cleanup
// function, called before the next view renders (to stop its timers).

import { api, currentSession, logout, whenUnauthorized } from './api.js';
import { h, parseHash, replace, tickTimes, note } from './dom.js';
import { renderLogin } from './login.js';
import { renderOverview } from './overview.js';
import { renderJobs, renderJob } from './jobs.js';
import { renderDeadLetters } from './dlq.js';
import { renderDoctor } from './doctor.js';
import { renderWorkers } from './workers.js';
import { renderSchedules } from './schedules.js';
import { renderWorkflow } from './workflows.js';
import { renderDatabases } from './databases.js';

const main = document.getElementById('main');
const topbar = document.getElementById('topbar');
const banner = document.getElementById('banner');
let session = null;
let cleanup = null;

function stopView() {
  if (cleanup) {
    try {
      cleanup();
    } catch (e) {
      // a view's cleanup must not block the next view
    }
  }
  cleanup = null;
}

function showLogin(message) {
  stopView();
  session = null;
  topbar.hidden = true;
  document.body.classList.add('signed-out');
  renderLogin(main, message, async (s) => {
    session = s;
    if (!location.hash || location.hash === '#/login') location.hash = '#/overview';
    else route();
  });
}

function setNav(active) {
  for (const a of topbar.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === active) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/**
 * Every page of the dashboard, matched against the hash's path segments (":id" matches any one);
 * nav is the top-bar entry the page marks. The browser tests visit each one (they import this list).
 */
export const ROUTES = [
  { pattern: 'overview', nav: 'overview', view: renderOverview },
  { pattern: 'jobs', nav: 'jobs', view: renderJobs },
  { pattern: 'jobs/:id', nav: 'jobs', view: renderJob },
  { pattern: 'dlq', nav: 'dlq', view: renderDeadLetters },
  { pattern: 'workers', nav: 'workers', view: renderWorkers },
  { pattern: 'schedules', nav: 'schedules', view: renderSchedules },
  { pattern: 'doctor', nav: 'doctor', view: renderDoctor },
  { pattern: 'databases', nav: 'databases', view: renderDatabases },
  // Reached from a step's job page (its workflow tag) or by id; the narrow top bar has no room for a link.
  { pattern: 'workflows', nav: null, view: renderWorkflow },
  { pattern: 'workflows/:id', nav: null, view: renderWorkflow },
];

function routeOf(path) {
  // No path, or #/login once logged in, is the overview.
  if (!path.length || (path.length === 1 && path[0] === 'login')) return ROUTES[0];
  return ROUTES.find((r) => {
    const parts = r.pattern.split('/');
    return parts.length === path.length && parts.every((p, i) => p === ':id' || p === path[i]);
  }) || { nav: null, view: renderNotFound };
}

function route() {
  if (!session) {
    showLogin();
    return;
  }
  stopView();
  banner.hidden = true;
  document.body.classList.remove('signed-out');
  topbar.hidden = false;
  document.getElementById('role').textContent = session.role;
  showDatabasesNav();
  const r = parseHash(location.hash);
  const { nav, view } = routeOf(r.path);
  setNav(nav);
  replace(main);
  delete main.dataset.loaded;
  window.scrollTo(0, 0);
  const key = location.hash;
  // Views call ui.loaded() once their data is on the page (tests wait for it, keyed by the route).
  const loaded = () => {
    if (location.hash === key) main.dataset.loaded = key;
  };
  cleanup = view(main, r, session, { banner: showBanner, loaded }) || null;
}

/** The Databases entry shows on a server of several databases (one of one database answers 404); asked once a session. */
let databasesAsked = null;
function showDatabasesNav() {
  if (databasesAsked === session) return;
  databasesAsked = session;
  api.get('/api/databases').then(() => {
    document.getElementById('nav-databases').hidden = false;
  }, () => {});
}

/** An unknown route says so, rather than showing another page as if it were the one asked for. */
function renderNotFound(el, r, s, ui) {
  replace(el,
    h('div', { class: 'page-head' }, h('h1', { id: 'not-found', text: 'Not found' })),
    note('There is no page “#/' + r.path.join('/') + '” in the dashboard.', 'error'),
    h('p', {}, h('a', { href: '#/overview', id: 'not-found-home', text: 'Go to the overview' })));
  ui.loaded();
}

/** A quiet banner under the top bar (connection trouble); null hides it. */
function showBanner(text) {
  if (text) {
    banner.textContent = text;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}

document.getElementById('logout').addEventListener('click', async () => {
  try {
    await logout();
  } finally {
    location.hash = '#/login';
    showLogin('You are logged out.');
  }
});

whenUnauthorized(() => {
  if (session) showLogin('Your session has ended; log in again.');
});

window.addEventListener('hashchange', () => {
  if (session) route();
});

setInterval(tickTimes, 5000);

(async function boot() {
  try {
    session = await currentSession();
  } catch (e) {
    replace(main, note('The server cannot be reached: ' + e.message, 'error'));
    return;
  }
  if (session) route();
  else showLogin();
})();
