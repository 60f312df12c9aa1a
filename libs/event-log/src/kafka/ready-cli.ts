/**
 * `node libs/event-log/dist/kafka/ready-cli.js <brokers> [timeoutMs]`: exits 0 once the
 * broker can serve producers and consumer groups, 1 otherwise. Used by
 * deploy/local/infra.sh, which cannot tell readiness from an open port.
 */
import { createKafka } from './client';
import { waitForKafka } from './admin';

async function main(): Promise<void> {
  const [brokers = '127.0.0.1:9092', timeout = '60000'] = process.argv.slice(2);
  const kafka = createKafka({ brokers: brokers.split(','), clientId: 'shortlink-readiness' });
  await waitForKafka(kafka, Number(timeout));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(String(e));
    process.exit(1);
  },
);
