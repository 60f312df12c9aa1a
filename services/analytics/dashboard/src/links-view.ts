import { api, ApiError, linkPath, nameOf, type Analytics, type Link, type LinkPage } from './api.js';
import { el, field } from './dom.js';
import { linkHash } from './link-view.js';

const PAGE_SIZE = 20;

interface ListState {
  search: string;
  tag: string;
  /** The cursors of the pages before this one, to go back. */
  previous: (string | null)[];
  cursor: string | null;
}

/** The caller's links: create, find by text or tag, page through, see each one's clicks of the last 7 days, delete. */
export function linksView(key: string, onSignedOut: () => void): HTMLElement {
  const state: ListState = { search: '', tag: '', previous: [], cursor: null };
  /** What the list shows (loading, empty); `notice` says what an action just did. */
  const status = el('p', { className: 'muted', attrs: { role: 'status' } });
  const notice = el('p', { className: 'muted', attrs: { role: 'status' } });
  const rows = el('tbody');
  // Busy until the list and every row's clicks have answered: screen readers wait for it, and so do the checks.
  const table = el('table', { attrs: { 'aria-busy': 'true' } });
  let loads = 0;
  const pager = el('div', { className: 'pager' });

  const guard = (e: unknown): void => {
    if (e instanceof ApiError && e.status === 401) return onSignedOut();
    status.textContent = e instanceof ApiError ? `${e.message}. ${e.detail}` : 'Something went wrong.';
  };

  // Create
  const url = field('link-url', 'Destination URL', {
    type: 'url',
    required: true,
    placeholder: 'https://example.com/page',
  });
  const slug = field('link-slug', 'Custom slug (optional)', { placeholder: 'summer-sale' });
  const tag = field('link-tag', 'Tag (optional)', {});
  const fieldsByName: Record<string, ReturnType<typeof field>> = { url, customSlug: slug, tag };
  const created = el('p', { className: 'muted', attrs: { role: 'status' } });
  const createForm = el(
    'form',
    {
      className: 'panel',
      attrs: { 'aria-labelledby': 'create-title', novalidate: '' },
      on: { submit: (e) => void create(e) },
    },
    el('h2', { id: 'create-title' }, 'New link'),
    el('div', { className: 'fields' }, url.wrapper, slug.wrapper, tag.wrapper),
    el('div', { className: 'actions' }, el('button', { props: { type: 'submit' } }, 'Create link')),
    created,
  );
  async function create(event: Event): Promise<void> {
    event.preventDefault();
    for (const f of Object.values(fieldsByName)) f.showError(null);
    const body: Record<string, string> = { url: url.control.value.trim() };
    if (slug.control.value.trim()) body.customSlug = slug.control.value.trim();
    if (tag.control.value.trim()) body.tag = tag.control.value.trim();
    try {
      const link = await api<Link>(key, 'POST', '/api/v1/links', body);
      created.textContent = `Created ${link.shortUrl}`;
      url.control.value = slug.control.value = tag.control.value = '';
      state.previous = [];
      state.cursor = null;
      await load();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return onSignedOut();
      // The API's own words, beside the field they are about.
      const target = e instanceof ApiError ? (fieldsByName[e.field ?? ''] ?? url) : url;
      target.showError(e instanceof ApiError ? `${e.message}${e.detail ? `: ${e.detail}` : ''}` : 'Not created.');
    }
  }

  // Find
  const search = field('filter-search', 'Search', { type: 'search', placeholder: 'slug or destination' });
  const tagFilter = field('filter-tag', 'Tag', {});
  const filters = el(
    'form',
    {
      className: 'panel',
      attrs: { role: 'search', 'aria-label': 'Filter links' },
      on: {
        submit: (event) => {
          event.preventDefault();
          state.search = search.control.value.trim();
          state.tag = tagFilter.control.value.trim();
          state.previous = [];
          state.cursor = null;
          void load();
        },
      },
    },
    el('div', { className: 'fields' }, search.wrapper, tagFilter.wrapper),
    el('div', { className: 'actions' }, el('button', { className: 'quiet', props: { type: 'submit' } }, 'Apply')),
  );

  async function load(): Promise<void> {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (state.search) query.set('search', state.search);
    if (state.tag) query.set('tag', state.tag);
    if (state.cursor) query.set('cursor', state.cursor);
    status.textContent = 'Loading…';
    const thisLoad = ++loads;
    table.setAttribute('aria-busy', 'true');
    let page: LinkPage;
    try {
      page = await api<LinkPage>(key, 'GET', `/api/v1/links?${query.toString()}`);
    } catch (e) {
      if (thisLoad === loads) table.setAttribute('aria-busy', 'false');
      return guard(e);
    }
    for (const f of [search, tagFilter]) f.showError(null);
    const drawn = page.links.map(row);
    rows.replaceChildren(...drawn.map((r) => r.tr));
    // A later load (a search typed meanwhile) owns the flag once it has started.
    void Promise.all(drawn.map((r) => r.clicksShown)).then(() => {
      if (thisLoad === loads) table.setAttribute('aria-busy', 'false');
    });
    status.textContent =
      page.links.length === 0 ? (state.search || state.tag ? 'No link matches.' : 'No links yet.') : '';
    pager.replaceChildren(
      ...(state.previous.length > 0
        ? [
            el(
              'button',
              { className: 'quiet', props: { type: 'button' }, on: { click: () => void back() } },
              'Previous page',
            ),
          ]
        : []),
      ...(page.nextCursor
        ? [
            el(
              'button',
              { className: 'quiet', props: { type: 'button' }, on: { click: () => void next(page.nextCursor) } },
              'Next page',
            ),
          ]
        : []),
    );
  }
  async function next(cursor: string | null): Promise<void> {
    state.previous.push(state.cursor);
    state.cursor = cursor;
    await load();
  }
  async function back(): Promise<void> {
    state.cursor = state.previous.pop() ?? null;
    await load();
  }

  /** Edit a link's destination and tag in its row: the API's refusal beside the field it names. */
  function editRow(link: Link, shown: HTMLTableRowElement): HTMLTableRowElement {
    const name = nameOf(link);
    // An element id without dots, so that a selector can name it as it is.
    const id = `edit-${name.replace(/[./]/g, '-')}`;
    const destination = field(`${id}-url`, `Destination of ${name}`, {
      type: 'url',
      required: true,
      value: link.destinationUrl,
    });
    const tagField = field(`${id}-tag`, `Tag of ${name} (empty: none)`, { value: link.tag ?? '' });
    const byName: Record<string, ReturnType<typeof field>> = { url: destination, tag: tagField };
    const cancel = (): void => {
      form.closest('tr')?.replaceWith(shown);
      shown.querySelector<HTMLButtonElement>('button[data-edit]')?.focus();
    };
    async function save(event: Event): Promise<void> {
      event.preventDefault();
      for (const f of Object.values(byName)) f.showError(null);
      // Only what changed is sent; an emptied tag removes it.
      const body: Record<string, string | null> = {};
      const url = destination.control.value.trim();
      const tag = tagField.control.value.trim();
      if (url !== link.destinationUrl) body.url = url;
      if (tag !== (link.tag ?? '')) body.tag = tag === '' ? null : tag;
      if (Object.keys(body).length === 0) return cancel();
      try {
        await api<Link>(key, 'PATCH', linkPath(link), body);
        notice.textContent = `Saved ${name}.`;
        await load();
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return onSignedOut();
        const target = e instanceof ApiError ? (byName[e.field ?? ''] ?? destination) : destination;
        target.showError(e instanceof ApiError ? `${e.message}${e.detail ? `: ${e.detail}` : ''}` : 'Not saved.');
      }
    }
    const form = el(
      'form',
      {
        className: 'edit',
        attrs: { 'aria-label': `Edit ${name}`, novalidate: '' },
        on: { submit: (e) => void save(e) },
      },
      el('div', { className: 'fields' }, destination.wrapper, tagField.wrapper),
      el(
        'div',
        { className: 'actions' },
        el('button', { props: { type: 'submit' } }, 'Save'),
        el('button', { className: 'quiet', props: { type: 'button' }, on: { click: cancel } }, 'Cancel'),
      ),
    );
    return el('tr', {}, el('td', { attrs: { colspan: '5' } }, form));
  }

  function row(link: Link): { tr: HTMLTableRowElement; clicksShown: Promise<unknown> } {
    const clicks = el('td', { className: 'number' }, '…');
    const clicksShown = api<Analytics>(key, 'GET', linkPath(link, '/analytics', { range: '7d' })).then(
      (a) => (clicks.textContent = a.totalClicks.toLocaleString()),
      () => (clicks.textContent = '–'),
    );
    const remove = el(
      'button',
      {
        className: 'danger',
        props: { type: 'button' },
        attrs: { 'aria-label': `Delete ${nameOf(link)}` },
        on: { click: () => void removeLink(link) },
      },
      'Delete',
    );
    const edit = el(
      'button',
      {
        className: 'quiet',
        props: { type: 'button' },
        attrs: { 'aria-label': `Edit ${nameOf(link)}`, 'data-edit': '' },
        on: {
          click: () => {
            const editing = editRow(link, shown);
            shown.replaceWith(editing);
            editing.querySelector('input')?.focus();
          },
        },
      },
      'Edit',
    );
    const shown = el(
      'tr',
      {},
      // The link's own page: its chart, breakdowns and QR code.
      el('td', {}, el('a', { props: { href: linkHash(link) } }, nameOf(link))),
      el('td', { className: 'destination' }, link.destinationUrl),
      el('td', { className: 'optional' }, link.tag ?? ''),
      clicks,
      el('td', { className: 'row-actions' }, edit, remove),
    );
    return { tr: shown, clicksShown };
  }
  async function removeLink(link: Link): Promise<void> {
    if (
      !window.confirm(`Delete ${link.shortUrl}? It stops redirecting at once, and its slug is never given out again.`)
    )
      return;
    try {
      await api(key, 'DELETE', linkPath(link));
      notice.textContent = `Deleted ${nameOf(link)}.`;
      await load();
    } catch (e) {
      guard(e);
    }
  }

  table.append(
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { attrs: { scope: 'col' } }, 'Slug'),
        el('th', { attrs: { scope: 'col' } }, 'Destination'),
        el('th', { className: 'optional', attrs: { scope: 'col' } }, 'Tag'),
        el('th', { className: 'number', attrs: { scope: 'col' } }, 'Clicks, 7 days'),
        el('th', { attrs: { scope: 'col' } }, el('span', { className: 'muted' }, 'Actions')),
      ),
    ),
    rows,
  );
  void load();
  return el(
    'div',
    {},
    el('h1', {}, 'Links'),
    createForm,
    el('h2', {}, 'Your links'),
    filters,
    notice,
    status,
    el('div', { className: 'table-wrap' }, table),
    pager,
  );
}
