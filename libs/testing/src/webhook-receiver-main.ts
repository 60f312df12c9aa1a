import { createWebhookReceiver } from './webhook-receiver';

/**
 * The webhook receiver as a process (see webhook-receiver.ts): PORT and HOST to listen on, RECEIVER_LOG the file it
 * appends each request to, RECEIVER_FAIL_RATE (0.3) and RECEIVER_SLOW_MS (1000) for `…/flaky` and `…/slow`,
 * RECEIVER_BODIES=false to log no bodies. A test fixture: it checks nothing and trusts what it is sent.
 */
const env = process.env;
const logFile = env.RECEIVER_LOG;
if (!logFile) throw new Error('RECEIVER_LOG (the file each request is appended to) is required');
const server = createWebhookReceiver(logFile, {
  failRate: Number(env.RECEIVER_FAIL_RATE ?? 0.3),
  slowMs: Number(env.RECEIVER_SLOW_MS ?? 1000),
  bodies: env.RECEIVER_BODIES !== 'false',
});
server.keepAliveTimeout = 30_000;
server.listen(Number(env.PORT ?? 0), env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
