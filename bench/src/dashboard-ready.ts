/**
 * What each dashboard page shows once it has drawn everything it loads: a CSS selector the checks, the screenshots
 * and the bench wait for. Here, in the bench's own sources, because the bench is compiled on its own and the
 * dashboard's page list (test/support/dashboard-pages.ts) imports these rather than repeating them.
 */

/** The links list: its table stops being `aria-busy` once the list and every row's clicks have answered. */
export const LINKS_PAGE_READY = 'table[aria-busy="false"]';

/** A link's page (`#/links/<slug>`): `aria-busy="false"` once the link, its first figures and its QR code have answered. */
export const LINK_PAGE_READY = '[data-page="link"][aria-busy="false"]';
