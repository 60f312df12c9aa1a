import { mkdtemp, rm } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@shortlink/testing';
import { createKeyWithCli } from './support/cli';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * Webhooks with nothing installed (`npm start`: PGlite and the embedded event log under DATA_DIR): a delivery that
 * failed is still pending after the process is killed, and the next process sends it under the same id.
 */
describe('webhooks in the embedded mode', () => {
  let dataDir: string;
  const running: RunningProcess[] = [];
  const start = async () => {
    const app = await startProcess('deploy/standalone/dist/main.js', {
      DATA_DIR: dataDir,
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    running.push(app);
    return app;
  };
  const received: { headers: Record<string, string>; body: string; status: number }[] = [];
  let failing = true;
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const status = failing ? 500 : 204;
      received.push({
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
        status,
      });
      res.writeHead(status).end();
    });
  });

  beforeAll(async () => {
    buildOnce();
    dataDir = await mkdtemp(join(tmpdir(), 'shortlink-webhooks-'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  }, 90_000);

  afterAll(async () => {
    for (const app of running) await app.kill();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps a pending delivery through a kill -9 and sends it again under the same webhook-id', async () => {
    // Given a webhook whose endpoint fails, and a link created
    let app = await start();
    const key = await createKeyWithCli({ DATA_DIR: dataDir }, 'pro');
    const api = (path: string, body: unknown) =>
      fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const webhook = (await (await api('/api/v1/webhooks', { url, events: ['link.created'] })).json()) as {
      secret: string;
    };
    expect((await api('/api/v1/links', { url: 'https://example.com/embedded-hook' })).status).toBe(201);
    await eventually(async () => (received.length > 0 ? true : undefined), 30_000, 'the first attempt');

    // When the process is killed before the retry, and started again on the same data, the endpoint now answering
    await app.kill();
    failing = false;
    app = await start();

    // Then the retry comes, the same message, signed with the webhook's secret
    const retried = await eventually(
      async () => received.find((r) => r.status === 204),
      60_000,
      'the retry after the restart',
    );
    expect(retried.headers['webhook-id']).toBe(received[0]?.headers['webhook-id']);
    expect(retried.body).toBe(received[0]?.body);
    expect(() => new Webhook(webhook.secret).verify(retried.body, retried.headers)).not.toThrow();
    expect(JSON.parse(retried.body)).toMatchObject({
      type: 'link.created',
      data: { destinationUrl: 'https://example.com/embedded-hook' },
    });
  }, 180_000);
});
