/**
 * `node libs/chdb-server/dist/cli.js --path DIR [--host H] [--port P]`: serves a
 * local ClickHouse-compatible HTTP endpoint on the chdb engine. Started by
 * `npm run infra:up`; not for production.
 */
import { parseArgs } from 'node:util';
import { startChdbHttpServer } from './server';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      path: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8123' },
    },
  });
  if (!values.path) throw new Error('--path DIR is required');
  const port = Number(values.port);
  const handle = await startChdbHttpServer({
    dataPath: values.path,
    host: values.host,
    port,
    onError: (error) => console.error(`[chdb-server] ${error.message.split('\n')[0]}`),
  });
  console.log(`[chdb-server] ClickHouse HTTP interface on http://${values.host}:${port}, data in ${values.path}`);
  const stop = (): void => {
    handle.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((e: unknown) => {
  console.error(`[chdb-server] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
