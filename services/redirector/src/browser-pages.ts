import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * Pages for a browser at the short-link host: `/` (what this is, where the API
 * reference is), a 404 for an unknown or deleted short link, `/robots.txt` and
 * `/favicon.ico`. Each is built once and echoes nothing of the request, so
 * nothing needs escaping; no script, one inline style allowed by its hash.
 * Only an `Accept` that prefers HTML gets a page: an API client, curl (any
 * type) included, gets the JSON answers of the contract.
 */

/**
 * Whether `Accept` ranks `text/html` above JSON: named (or `text/*`) with a
 * weight above zero and above `application/json`'s (named, or any application
 * type, or any type). A tie is JSON: the API's answers are JSON unless a browser asks.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes('text/')) return false;
  let html = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (type === 'text/html' || type === 'text/*') html = Math.max(html, weight);
    if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, weight);
  }
  return html > 0 && html > json;
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'h1{font-size:1.5rem}a{color:#0645ad}code{background:#f3f3f3;padding:0 .2em}';
const styleHash = createHash('sha256').update(STYLE).digest('base64');

/** No script, no frame, no form; the one inline style by its hash, the favicon from here. */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${styleHash}'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const page = (title: string, body: string): string =>
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<title>${title}</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">` +
  `<style>${STYLE}</style></head><body><main>${body}</main></body></html>\n`;

export const LANDING_PAGE = page(
  'shortlink',
  '<h1>shortlink</h1><p>A short-link service: its API creates short links, redirects them and counts their clicks.</p>' +
    '<p>The <a href="/dashboard">dashboard</a> shows your links and their clicks once you sign in with an API key. ' +
    'The <a href="/docs">API reference</a> lists every operation and lets you try each one; ' +
    'the <a href="/openapi.json">OpenAPI document</a> describes them for tools. ' +
    'Every <code>/api/</code> request needs an API key.</p>',
);

export const NOT_FOUND_PAGE = page(
  'Link not found',
  '<h1>Link not found</h1><p>No short link has this address: it may be mistyped, or the link was deleted.</p>' +
    '<p><a href="/">What is this site?</a></p>',
);

const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Paths of the pages, beside the API: not in the API document. */
export const BROWSER_PAGE_PATHS: readonly string[] = ['/', '/robots.txt', '/favicon.ico'];

/** Sends one of the pages above. */
export const sendPage = (reply: FastifyReply, status: number, html: string, cacheControl: string): FastifyReply =>
  reply
    .code(status)
    .headers({ ...HTML_HEADERS, 'cache-control': cacheControl })
    .send(html);

/**
 * `/robots.txt`: the API is never crawled; the short links are not either,
 * unless `allowRedirects` (ROBOTS_ALLOW_REDIRECTS): a crawler that follows one
 * is redirected, uncounted, and the redirect carries `X-Robots-Tag: noindex`.
 */
export function robotsTxt(allowRedirects: boolean): string {
  return allowRedirects
    ? 'User-agent: *\nDisallow: /api/\nDisallow: /dashboard\nDisallow: /docs\nDisallow: /openapi.json\nAllow: /\n'
    : 'User-agent: *\nDisallow: /api/\nDisallow: /\n';
}

/** The favicon: a small SVG, the ".ico" path being where browsers look for one. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="6" fill="#0645ad"/>' +
  '<path d="M9 19l5-5m-1 7l-2 2a4 4 0 0 1-6-6l4-4a4 4 0 0 1 6 0m3-3l2-2a4 4 0 0 1 6 6l-4 4a4 4 0 0 1-6 0" ' +
  'stroke="#fff" stroke-width="2.5" fill="none" stroke-linecap="round"/></svg>\n';
