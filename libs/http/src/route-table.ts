import type { FastifyInstance } from 'fastify';

/** A route as registered: its methods and its path pattern, split into segments. */
interface RouteEntry {
  methods: readonly string[];
  segments: readonly string[];
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Every route the server will hold, as routes are added (an `onRoute` hook, so it
 * must be called before any route is). A catch-all (a path whose first segment is
 * a parameter or a wildcard, such as the redirect's `GET /:slug`) is left out: it
 * would make every path a known one, and an unknown path stays a 404.
 */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const segments = route.url.split('/').slice(1);
    const first = segments[0] ?? '';
    if (first.startsWith(':') || first.startsWith('*')) return;
    // OPTIONS answers preflights (CORS) wherever it is routed: it makes no path a known one.
    const methods = [route.method]
      .flat()
      .map((m) => m.toUpperCase())
      .filter((m) => m !== 'OPTIONS');
    if (methods.length > 0) routes.push({ methods, segments });
  });
  return routes;
}

/** The methods the path of `url` is routed for (HEAD with GET), in a fixed order; none for an unknown path. */
export function methodsOfPath(routes: readonly RouteEntry[], url: string): string[] {
  let path = url.split('?')[0] ?? '';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const segments = path.split('/').slice(1);
  const methods = new Set<string>();
  for (const route of routes) {
    if (matches(route.segments, segments)) for (const m of route.methods) methods.add(m);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return METHOD_ORDER.filter((m) => methods.has(m));
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] ?? '';
    if (p.startsWith('*')) return true;
    const s = segments[i];
    if (s === undefined) return false;
    if (p.startsWith(':') ? s === '' : p !== s) return false;
  }
  return pattern.length === segments.length;
}
