/**
 * The baseline for the redirect benchmark: a bare fastify server answering 302
 * from a Map, nothing else. `node bench/dist/baseline-server.js <links.json>`,
 * port from PORT. What our redirector adds on top (validation, cache, click
 * capture) is measured against this.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const links = new Map<string, string>(
  Object.entries(JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Record<string, string>),
);
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get<{ Params: { slug: string } }>('/:slug', async (request, reply) => {
  const destination = links.get(request.params.slug);
  if (!destination) return reply.code(404).send({ error: 'Link not found' });
  return reply.code(302).header('location', destination).send();
});
app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3999) }).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
