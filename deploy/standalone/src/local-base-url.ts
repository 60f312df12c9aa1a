type Env = Readonly<Record<string, string | undefined>>;

/**
 * Under `npm start` one process answers the API and the short URLs on one port, so until PUBLIC_BASE_URL is set a short
 * URL is `http://localhost:$PORT`. The shared default (port 3000, whatever PORT says) would hand out links to a port
 * nothing answers, and let a link to the real port past the self-reference check: a redirect loop. Services run apart
 * keep the shared default: a write API's port is not where its short URLs are answered.
 */
export function withLocalBaseUrl(env: Env): Env {
  if (env.PUBLIC_BASE_URL !== undefined) return env;
  const port = env.PORT;
  // Anything else is the PORT schema's to refuse; 0 (a port the system picks) is not an address.
  if (port === undefined || !/^\d{1,5}$/.test(port) || Number(port) === 0 || Number(port) > 65535) return env;
  // An origin drops a scheme's default port: `http://localhost`, not `http://localhost:80`.
  return { ...env, PUBLIC_BASE_URL: new URL(`http://localhost:${Number(port)}`).origin };
}
