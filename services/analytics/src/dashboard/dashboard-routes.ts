import type { FastifyInstance, FastifyReply } from 'fastify';
import { HTTP_ERRORS, httpError } from '@shortlink/http';
import { readDashboardFiles, type DashboardFile } from './dashboard-files';

/**
 * The dashboard's own page rules: its scripts and styles from this origin only, no inline script and no `eval`;
 * images from this origin, `https` (a link preview's image may be on any host; the page shows `https:` ones only, and
 * the policy refuses `http:` and `data:` even if it did not) and the QR codes it reads with the key (`blob:`); the API
 * on this origin; never framed.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The dashboard's paths: pages for browsers, not routes of the API document. */
const PAGE_PATH = '/dashboard';
const FILE_PATH = '/dashboard/:file';
export const DASHBOARD_PATHS: readonly string[] = [PAGE_PATH, FILE_PATH];

const HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  // The page's address never leaves it, nor does a key typed into it.
  'referrer-policy': 'no-referrer',
  // Each release's files, with no build hash in their names: asked again each time, answered 304 when unchanged.
  'cache-control': 'no-cache',
};

const send = (reply: FastifyReply, file: DashboardFile): FastifyReply =>
  reply.headers(HEADERS).type(file.mediaType).send(file.body);

/**
 * `GET /dashboard` and its files: a page that talks to the public API with the key the user signs in with (kept in
 * the tab's sessionStorage only). Not part of the API document: it is a client of the API like any other.
 */
export async function dashboardRoutes(app: FastifyInstance, files = readDashboardFiles()): Promise<void> {
  const page = files.get('index.html');
  app.get(PAGE_PATH, (_request, reply) =>
    page
      ? send(reply, page)
      : reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run npm run build.'),
  );
  app.get<{ Params: { file: string } }>(FILE_PATH, (request, reply) => {
    const file = files.get(request.params.file);
    if (!file) throw httpError({ ...HTTP_ERRORS.notFound, detail: 'The dashboard has no such file.' });
    return send(reply, file);
  });
}
