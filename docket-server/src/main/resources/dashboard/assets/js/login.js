// The login page: a token opens a session (cookie set by the server, CSRF token kept in memory).

import { login, currentSession, ApiError } from './api.js';
import { h, replace } from './dom.js';

export function renderLogin(main, message, onLoggedIn) {
  const error = h('p', { class: 'form-error', id: 'login-error', role: 'alert', hidden: true });
  const info = message ? h('p', { class: 'form-info', text: message }) : null;
  const input = h('input', {
    type: 'password', id: 'token', name: 'token', autocomplete: 'off', spellcheck: 'false',
    required: true, placeholder: 'API token', 'aria-describedby': 'login-error',
  });
  const submit = h('button', { type: 'submit', class: 'button primary wide', id: 'login-submit', text: 'Log in' });
  const form = h('form', { class: 'login-form', id: 'login-form', novalidate: true },
    h('label', { for: 'token', text: 'API token' }),
    input,
    error,
    submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    const token = input.value.trim();
    if (!token) {
      showError('Enter a token.');
      return;
    }
    submit.disabled = true;
    try {
      await login(token);
      const session = await currentSession();
      input.value = '';
      onLoggedIn(session);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) showError('That token is not valid.');
      else if (e instanceof ApiError && e.status === 429) showError('Too many attempts; wait a moment.');
      else showError('Could not log in: ' + e.message);
      input.select();
    } finally {
      submit.disabled = false;
    }
  });

  function showError(text) {
    error.textContent = text;
    error.hidden = false;
  }

  replace(main, h('section', { class: 'login', id: 'login' },
    h('div', { class: 'login-card' },
      h('div', { class: 'login-brand' },
        h('img', { src: '/assets/favicon.svg', alt: '', width: 36, height: 36 }),
        h('h1', { text: 'Docket' })),
      h('p', { class: 'muted', text: 'Log in with an API token. Viewers see jobs with payloads hidden; operators and admins can retry and cancel.' }),
      info,
      form)));
  input.focus();
}
