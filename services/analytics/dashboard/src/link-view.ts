import {
  api,
  apiBlob,
  ApiError,
  rateLimit,
  RANGES,
  type Account,
  type Analytics,
  type Bucket,
  linkPath,
  nameOf,
  type LinkName,
  type LinkWithPreview,
  type Preview,
  type Range,
} from './api.js';
import { clicksChart } from './clicks-chart.js';
import { el } from './dom.js';

/** The link page's address: `#/links/<slug>`, or `#/links/<domain>/<slug>` for a link on a domain; null for any other. */
export function linkOfHash(hash: string): LinkName | null {
  const found = /^#\/links\/(?:([a-z0-9.-]{1,253})\/)?([a-z0-9-]{1,64})$/.exec(hash);
  return found ? { slug: found[2]!, domain: found[1] ?? null } : null;
}

export const linkHash = (link: LinkName): string =>
  link.domain ? `#/links/${link.domain}/${link.slug}` : `#/links/${link.slug}`;

/** How often live mode asks again: a click is shown about a second after the analytics have it. */
const LIVE_INTERVAL_MS = 1000;
/** Requests of the key's minute live mode leaves to the person's own clicks around the page. */
const LIVE_RESERVE = 10;

/**
 * A preview image's address, only when it is `https:`: the destination's page chose it, so `javascript:`, `data:`,
 * `http:` (mixed content, and refused by the page's policy) and anything unreadable are not shown at all.
 */
export function safeImageUrl(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

const TRIGGER_NAMES: Record<string, string> = { link: 'Short link followed', qr: 'QR code scanned' };
/** Why a redirect was not counted, in the words of docs/filtered-redirects.md. */
const FILTER_REASON_NAMES: Record<string, string> = {
  crawler: 'Crawlers and bots',
  http_library: 'Programs such as curl',
  prefetch: 'Browser prefetches',
  head: 'Not a GET (link checkers)',
  no_user_agent: 'No user agent',
};

/**
 * One link: its short URL to copy, its destination's preview, its clicks over a range (ranges its plan does not read
 * shown locked, with why), visitors and breakdowns, a live mode, and its QR code to download.
 */
export function linkView(key: string, name: LinkName, onSignedOut: () => void): HTMLElement {
  const { slug } = name;
  const status = el('p', { className: 'muted', attrs: { role: 'status' } });
  const guard = (e: unknown): boolean => {
    if (e instanceof ApiError && e.status === 401) {
      onSignedOut();
      return true;
    }
    return false;
  };

  // The link and its preview
  const heading = el('h1', {}, nameOf(name));
  const summary = el('section', { className: 'panel', attrs: { 'aria-label': 'Short URL' } });
  const previewBox = el('section', { className: 'panel preview', attrs: { 'aria-labelledby': 'preview-title' } });
  async function loadLink(): Promise<void> {
    let link: LinkWithPreview;
    try {
      link = await api<LinkWithPreview>(key, 'GET', linkPath(name));
    } catch (e) {
      if (guard(e)) return;
      status.textContent = e instanceof ApiError ? `${e.message}. ${e.detail}` : 'Something went wrong.';
      return;
    }
    summary.replaceChildren(...shortUrlParts(link));
    showPreview(link.preview);
    // A fresh link's preview is fetched in the background: asked again until it is there (a minute at most).
    if (link.preview.status === 'pending' && previewTries++ < 30) setTimeout(() => void reloadPreview(), 2000);
  }
  let previewTries = 0;
  async function reloadPreview(): Promise<void> {
    if (!root.isConnected) return;
    try {
      const link = await api<LinkWithPreview>(key, 'GET', linkPath(name));
      showPreview(link.preview);
      if (link.preview.status === 'pending' && previewTries++ < 30) setTimeout(() => void reloadPreview(), 2000);
    } catch (e) {
      guard(e);
    }
  }

  function shortUrlParts(link: LinkWithPreview): Node[] {
    const copied = el('span', { className: 'muted', attrs: { role: 'status' } });
    const copy = el(
      'button',
      {
        props: { type: 'button' },
        attrs: { 'aria-label': `Copy ${link.shortUrl}` },
        on: {
          click: () =>
            void navigator.clipboard.writeText(link.shortUrl).then(
              () => (copied.textContent = 'Copied.'),
              () => (copied.textContent = 'Copying was not allowed: select the address and copy it.'),
            ),
        },
      },
      'Copy',
    );
    return [
      el(
        'div',
        { className: 'short-url' },
        el('a', { props: { href: link.shortUrl }, attrs: { rel: 'noreferrer' } }, link.shortUrl),
        copy,
        copied,
      ),
      el(
        'dl',
        { className: 'facts' },
        el('dt', {}, 'Destination'),
        el('dd', { className: 'destination' }, link.destinationUrl),
        el('dt', {}, 'Tag'),
        el('dd', {}, link.tag ?? '–'),
        el('dt', {}, 'Created'),
        el('dd', {}, new Date(link.createdAt).toLocaleString()),
      ),
    ];
  }

  function showPreview(preview: Preview): void {
    const title = el('h2', { id: 'preview-title' }, 'Preview');
    if (preview.status !== 'ready') {
      previewBox.replaceChildren(
        title,
        el(
          'p',
          { className: 'muted' },
          preview.status === 'pending'
            ? 'Not fetched yet: the destination is read in the background.'
            : 'The destination could not be read for a preview.',
        ),
      );
      return;
    }
    // Every string here is the destination page's: shown as text, its image only from an https address.
    const image = safeImageUrl(preview.image);
    previewBox.replaceChildren(
      title,
      el(
        'div',
        { className: 'preview-body' },
        image
          ? el('img', {
              className: 'preview-image',
              attrs: { src: image, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' },
            })
          : null,
        el(
          'div',
          {},
          el('p', { className: 'preview-title' }, preview.title ?? 'No title'),
          preview.description ? el('p', { className: 'muted' }, preview.description) : null,
        ),
      ),
    );
  }

  // The clicks
  let range: Range = '7d';
  let allowed: readonly string[] = RANGES;
  /** Ranges the API refused for the plan, with its own words. */
  const refused = new Map<string, string>();
  const lockedWhy = (r: Range): string | null =>
    refused.get(r) ?? (allowed.includes(r) ? null : `${r} needs the Pro plan`);
  const rangeButtons = el('div', { className: 'ranges', attrs: { role: 'group', 'aria-label': 'Range' } });
  const lockNotes = el('p', { className: 'muted', id: 'range-locks' });
  function drawRanges(): void {
    rangeButtons.replaceChildren(
      ...RANGES.map((r) => {
        const why = lockedWhy(r);
        return el(
          'button',
          {
            className: why ? 'quiet locked' : r === range ? '' : 'quiet',
            props: { type: 'button' },
            attrs: {
              'aria-pressed': String(r === range),
              ...(why ? { 'aria-disabled': 'true', 'aria-describedby': 'range-locks', title: why } : {}),
            },
            on: {
              click: () => {
                if (why) {
                  status.textContent = `${why}.`;
                  return;
                }
                range = r;
                drawRanges();
                void loadAnalytics();
              },
            },
          },
          why ? `${r} (locked)` : r,
        );
      }),
    );
    const notes = RANGES.map(lockedWhy).filter((why): why is string => why !== null);
    lockNotes.textContent = notes.length > 0 ? `Locked: ${notes.join('; ')}.` : '';
  }

  const chart = clicksChart('Clicks per day');
  const totals = el('dl', { className: 'totals' });
  const breakdowns = el('div', { className: 'breakdowns' });
  let shown = '';

  async function loadAnalytics(): Promise<void> {
    let analytics: Analytics;
    const asked = range;
    try {
      analytics = await api<Analytics>(key, 'GET', linkPath(name, '/analytics', { range: asked }));
    } catch (e) {
      if (guard(e)) return;
      if (e instanceof ApiError && e.code === 'plan_upgrade_required') {
        refused.set(asked, e.message);
        range = '7d';
        drawRanges();
        return loadAnalytics();
      }
      status.textContent = e instanceof ApiError ? `${e.message}. ${e.detail}` : 'Something went wrong.';
      return;
    }
    if (asked !== range) return; // Another range was chosen meanwhile.
    const answer = JSON.stringify(analytics);
    if (answer === shown) return; // Live mode: nothing new, nothing redrawn.
    shown = answer;
    status.textContent = '';
    chart.update(analytics.clicksOverTime);
    totals.replaceChildren(
      el('div', {}, el('dt', {}, 'Clicks'), el('dd', {}, analytics.totalClicks.toLocaleString())),
      el('div', {}, el('dt', {}, 'Unique visitors'), el('dd', {}, analytics.uniqueVisitors.toLocaleString())),
      el(
        'div',
        { attrs: { title: 'Redirects answered but not counted as clicks: bots, programs, prefetches' } },
        el('dt', {}, 'Not counted'),
        el('dd', {}, analytics.filtered.total.toLocaleString()),
      ),
    );
    breakdowns.replaceChildren(
      breakdown('Referrers', analytics.referrers),
      breakdown('Countries', analytics.countries),
      breakdown('Devices', analytics.devices),
      breakdown('Browsers', analytics.browsers),
      breakdown(
        'Link or QR code',
        analytics.triggers.map((t) => ({ name: TRIGGER_NAMES[t.name] ?? t.name, count: t.count })),
      ),
      // What was left out, so the counts above can be audited: reasons with none are not listed.
      breakdown(
        'Not counted',
        analytics.filtered.reasons
          .filter((r) => r.count > 0)
          .map((r) => ({ name: FILTER_REASON_NAMES[r.name] ?? r.name, count: r.count })),
        'Nothing left out.',
        'Redirects',
      ),
      breakdown('Crawlers', analytics.filtered.crawlers, 'No crawler came.', 'Redirects'),
    );
  }

  // Live mode
  const live = el('input', {
    id: 'live',
    props: { type: 'checkbox' },
    on: { change: () => (live.checked ? void tick() : undefined) },
  });
  async function tick(): Promise<void> {
    if (!live.checked || !root.isConnected) return;
    await loadAnalytics();
    // Paced by the key's rate limit: a free key's minute is not spent on polling alone.
    const left = rateLimit.remaining - LIVE_RESERVE;
    const wait = left > rateLimit.resetSeconds ? LIVE_INTERVAL_MS : (rateLimit.resetSeconds * 1000) / Math.max(1, left);
    setTimeout(() => void tick(), Math.max(LIVE_INTERVAL_MS, wait));
  }

  // The QR code
  const qrBox = el('div', { className: 'qr' }, el('p', { className: 'muted' }, 'Loading the QR code…'));
  const qrStatus = el('p', { className: 'muted', attrs: { role: 'status' } });
  async function loadQr(): Promise<void> {
    try {
      const svg = await apiBlob(key, linkPath(name, '/qr', { format: 'svg', size: '240' }));
      // As an image from a blob: URL, the SVG is pixels only: no script in it could run, nor reach the page.
      qrBox.replaceChildren(
        el('img', {
          attrs: { src: URL.createObjectURL(svg), alt: `QR code of ${slug}`, width: '240', height: '240' },
        }),
      );
    } catch (e) {
      if (!guard(e)) qrBox.replaceChildren(el('p', { className: 'error' }, 'The QR code could not be drawn.'));
    }
  }
  async function downloadPng(): Promise<void> {
    try {
      const png = await apiBlob(key, linkPath(name, '/qr', { format: 'png', size: '1024' }));
      const url = URL.createObjectURL(png);
      const a = el('a', { props: { href: url, download: `${slug}-qr.png` } });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      qrStatus.textContent = `Downloaded ${slug}-qr.png.`;
    } catch (e) {
      if (!guard(e)) qrStatus.textContent = 'The PNG could not be made.';
    }
  }

  // Busy until the link, its first figures and its QR code have answered: screen readers wait for it, and so do the
  // checks and the bench (LINK_PAGE_READY).
  const root = el(
    'div',
    { className: 'link-page', attrs: { 'data-page': 'link', 'aria-busy': 'true' } },
    el('p', {}, el('a', { props: { href: '#/links' } }, '← All links')),
    heading,
    status,
    summary,
    previewBox,
    el(
      'section',
      { className: 'panel', attrs: { 'aria-labelledby': 'clicks-title' } },
      el('h2', { id: 'clicks-title' }, 'Clicks'),
      el(
        'div',
        { className: 'chart-controls' },
        rangeButtons,
        el('div', { className: 'live' }, live, el('label', { attrs: { for: 'live' } }, 'Live updates')),
      ),
      lockNotes,
      totals,
      chart.element,
    ),
    breakdowns,
    el(
      'section',
      { className: 'panel', attrs: { 'aria-labelledby': 'qr-title' } },
      el('h2', { id: 'qr-title' }, 'QR code'),
      qrBox,
      el(
        'div',
        { className: 'actions' },
        el('button', { props: { type: 'button' }, on: { click: () => void downloadPng() } }, 'Download PNG'),
      ),
      qrStatus,
    ),
  );

  drawRanges();
  // Every plan reads the first range (7d), so its figures are asked for at once, beside the plan's ranges: a range
  // the plan does not read is then shown locked before it can be chosen, and an answer of 403 locks one all the same.
  const account = api<Account>(key, 'GET', '/api/v1/account')
    .then((answer) => (allowed = answer.analyticsRanges))
    .catch((e: unknown) => guard(e))
    .finally(() => {
      if (root.isConnected) drawRanges();
    });
  // The QR code is drawn by the same service as the figures, and is further down the page: asked for once the
  // figures have answered, so its drawing never delays them.
  const figures = loadAnalytics();
  const qr = figures.then(loadQr, loadQr);
  void Promise.allSettled([loadLink(), figures, qr, account]).then(() => root.setAttribute('aria-busy', 'false'));
  return root;
}

/** A breakdown as a small table: its names are visitors' and pages' strings, shown as text. */
/** A table of buckets; `counted` names its numbers (clicks, or redirects not counted as clicks). */
function breakdown(title: string, buckets: Bucket[], none = 'No clicks yet.', counted = 'Clicks'): HTMLElement {
  return el(
    'section',
    { className: 'panel breakdown' },
    el('h3', {}, title),
    buckets.length === 0
      ? el('p', { className: 'muted' }, none)
      : el(
          'table',
          {},
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('th', { attrs: { scope: 'col' } }, 'Name'),
              el('th', { className: 'number', attrs: { scope: 'col' } }, counted),
            ),
          ),
          el(
            'tbody',
            {},
            ...buckets.map((b) =>
              el(
                'tr',
                {},
                el('td', { className: 'destination' }, b.name),
                el('td', { className: 'number' }, String(b.count)),
              ),
            ),
          ),
        ),
  );
}
