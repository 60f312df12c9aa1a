import { api, ApiError, type AccountAnalytics, type AccountRow } from './api.js';
import { el } from './dom.js';

const RANGES = ['7d', '30d', '90d', 'all'] as const;
type Range = (typeof RANGES)[number];
const RANGE_NAMES: Record<Range, string> = { '7d': '7 days', '30d': '30 days', '90d': '90 days', all: 'All time' };
const TOP = 10;

/** The account as a whole over a range: its clicks and visitors, its top links and top tags. */
export function accountView(key: string, onSignedOut: () => void): HTMLElement {
  const status = el('p', { className: 'muted', attrs: { role: 'status' } });
  const totalClicks = el('dd', { id: 'account-total-clicks' }, '…');
  const uniqueVisitors = el('dd', { id: 'account-unique-visitors' }, '…');
  const period = el('p', { className: 'muted' });
  const topLinks = el('tbody');
  const topTags = el('tbody');
  /** Ranges the plan does not read, with the API's reason; they stay locked for this page. */
  const locked = new Map<Range, string>();
  const buttons = new Map<Range, HTMLButtonElement>();
  let current: Range = '7d';

  const rows = (list: AccountRow[], empty: string): HTMLTableRowElement[] =>
    list.length === 0
      ? [el('tr', {}, el('td', { className: 'muted', attrs: { colspan: '3' } }, empty))]
      : list.map((r) =>
          el(
            'tr',
            {},
            el('td', {}, r.name),
            el('td', { className: 'number' }, r.clicks.toLocaleString()),
            el('td', { className: 'number' }, r.uniqueVisitors.toLocaleString()),
          ),
        );

  function showRanges(): void {
    for (const [range, button] of buttons) {
      const why = locked.get(range);
      button.setAttribute('aria-pressed', String(range === current));
      button.textContent = why ? `${RANGE_NAMES[range]} (locked)` : RANGE_NAMES[range];
      button.title = why ?? '';
      button.classList.toggle('locked', why !== undefined);
    }
  }

  async function load(range: Range): Promise<void> {
    const why = locked.get(range);
    if (why) {
      status.textContent = why;
      return;
    }
    status.textContent = 'Loading…';
    let byLink: AccountAnalytics;
    let byTag: AccountAnalytics;
    try {
      [byLink, byTag] = await Promise.all([
        api<AccountAnalytics>(key, 'GET', `/api/v1/analytics?range=${range}&groupBy=link&limit=${TOP}`),
        api<AccountAnalytics>(key, 'GET', `/api/v1/analytics?range=${range}&groupBy=tag&limit=${TOP}`),
      ]);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return onSignedOut();
      if (e instanceof ApiError && e.code === 'plan_upgrade_required') {
        locked.set(range, `${e.message}. ${e.detail}`);
        showRanges();
      }
      status.textContent = e instanceof ApiError ? `${e.message}. ${e.detail}` : 'Something went wrong.';
      return;
    }
    current = range;
    showRanges();
    totalClicks.textContent = byLink.totalClicks.toLocaleString();
    uniqueVisitors.textContent = byLink.uniqueVisitors.toLocaleString();
    period.textContent = `From ${byLink.from} to ${byLink.to} (UTC), every link of the account, deleted ones included.`;
    topLinks.replaceChildren(...rows(byLink.rows, 'No clicks in this range.'));
    topTags.replaceChildren(...rows(byTag.rows, 'No clicks on tagged links in this range.'));
    status.textContent = '';
  }

  const switcher = el(
    'div',
    { className: 'ranges', attrs: { role: 'group', 'aria-label': 'Range' } },
    ...RANGES.map((range) => {
      const button = el(
        'button',
        {
          className: 'quiet',
          props: { type: 'button' },
          attrs: { 'data-range': range },
          on: { click: () => void load(range) },
        },
        RANGE_NAMES[range],
      );
      buttons.set(range, button);
      return button;
    }),
  );

  const table = (caption: string, first: string, body: HTMLTableSectionElement) =>
    el(
      'div',
      { className: 'table-wrap' },
      el(
        'table',
        {},
        el('caption', {}, caption),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { attrs: { scope: 'col' } }, first),
            el('th', { className: 'number', attrs: { scope: 'col' } }, 'Clicks'),
            el('th', { className: 'number', attrs: { scope: 'col' } }, 'Unique visitors'),
          ),
        ),
        body,
      ),
    );

  showRanges();
  void load(current);
  return el(
    'div',
    {},
    el('h1', {}, 'Account'),
    switcher,
    status,
    el(
      'dl',
      { className: 'totals' },
      el('div', {}, el('dt', {}, 'Total clicks'), totalClicks),
      el('div', {}, el('dt', {}, 'Unique visitors'), uniqueVisitors),
    ),
    period,
    el('h2', {}, 'Top links'),
    table('Links with the most clicks', 'Slug', topLinks),
    el('h2', {}, 'Top tags'),
    table('Tags with the most clicks (a link counts under the tag it has now)', 'Tag', topTags),
  );
}
