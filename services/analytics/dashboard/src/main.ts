import { accountView } from './account-view.js';
import { el } from './dom.js';
import { linksView } from './links-view.js';
import { linkOfHash, linkView } from './link-view.js';
import { session } from './session.js';
import { signInView } from './sign-in-view.js';

/** Shows the page the session allows: sign-in without a key; with one, the links, a link's page (`#/links/<slug>`, `#/links/<domain>/<slug>`) or the account (`#/account`). */
function render(): void {
  const app = document.getElementById('app');
  const account = document.getElementById('account');
  if (!app || !account) return;
  const key = session.key();
  const signOut = (): void => {
    session.signOut();
    render();
  };
  if (key === null) {
    account.replaceChildren();
    app.replaceChildren(signInView(render));
  } else {
    account.replaceChildren(
      el('a', { props: { href: '#/links' } }, 'Links'),
      el('a', { props: { href: '#/account' } }, 'Account'),
      el('button', { className: 'quiet', props: { type: 'button' }, on: { click: signOut } }, 'Sign out'),
    );
    const link = linkOfHash(window.location.hash);
    app.replaceChildren(
      window.location.hash === '#/account'
        ? accountView(key, signOut)
        : link === null
          ? linksView(key, signOut)
          : linkView(key, link, signOut),
    );
  }
  app.focus();
}

window.addEventListener('hashchange', render);
render();
