import { api, ApiError } from './api.js';
import { el, field } from './dom.js';
import { session } from './session.js';

/** Sign in with an API key: checked against the API at once, so a wrong key is told here, not on the next page. */
export function signInView(onSignedIn: () => void): HTMLElement {
  const key = field('api-key', 'API key', { type: 'password', autocomplete: 'off', spellcheck: false, required: true });
  const form = el(
    'form',
    {
      className: 'panel',
      attrs: { 'aria-labelledby': 'sign-in-title', novalidate: '' },
      on: {
        submit: (event) => {
          event.preventDefault();
          void signIn();
        },
      },
    },
    el('h1', { id: 'sign-in-title' }, 'Sign in'),
    el('p', { className: 'muted' }, 'Your API key stays in this tab only and is sent to this service only.'),
    el('div', { className: 'fields' }, key.wrapper),
    el('div', { className: 'actions' }, el('button', { props: { type: 'submit' } }, 'Sign in')),
    el(
      'p',
      { className: 'muted' },
      'No key yet? Create one where the service runs: ',
      el('code', {}, 'npm run apikey -- create --plan free'),
    ),
  );
  async function signIn(): Promise<void> {
    const value = key.control.value.trim();
    if (value === '') return key.showError('Enter your API key.');
    try {
      await api(value, 'GET', '/api/v1/links?limit=1');
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        return key.showError('This key was not accepted: check it, or create a new one.');
      }
      return key.showError(e instanceof ApiError ? `${e.message}. ${e.detail}` : 'The key could not be checked.');
    }
    session.signIn(value);
    onSignedIn();
  }
  return form;
}
