import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { clickRecorded, createEvent, type ClickRecorded } from '@shortlink/events';
import { createKafka, ensureTopics, kafkaLogClient } from '@shortlink/event-log';
import { infraEnv, uniqueSuffix } from '@shortlink/testing';
import { eventLinesOf } from './click-event';
import { clickRecordsAppender } from './click-records-appender';

const env = infraEnv(process.env);
const run = promisify(execFile);

/** A user agent of the longest kept, in characters of three UTF-8 bytes, none repeated: what no compression helps. */
const hostileAgent = () =>
  Array.from({ length: 1024 }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000))).join('');

describe('appending clicks (real broker)', () => {
  const brokers = env.KAFKA_BROKERS.split(',');
  const client = kafkaLogClient(createKafka({ brokers, clientId: 'click-appends-int-test' }));
  const topic = `test.click-appends.${uniqueSuffix()}`;

  beforeAll(async () => {
    await ensureTopics(client, [{ topic, numPartitions: 3, configEntries: [] }]);
  });

  it('takes a flood of long, random user agents on one link: all in its partition, none refused as too large', async () => {
    // 1,500 clicks of about 3.3 KB, all to one partition: about 5 MB, where Kafka refuses a batch over 1 MB.
    const linkId = randomUUID();
    const events = Array.from({ length: 1500 }, (_, n) =>
      createEvent<ClickRecorded>(
        'ClickRecorded',
        1,
        {
          linkId,
          accountId: '9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c',
          slug: 'viral',
          clickedAt: 1_795_000_000_000 + n,
          visitorHash: 'ab'.repeat(32),
          referrer: 'Direct',
          country: 'XX',
          userAgent: hostileAgent(),
        },
        { eventId: randomUUID(), occurredAt: new Date(1_795_000_000_000 + n).toISOString() },
      ),
    );
    const producer = client.producer();
    await producer.connect();
    try {
      const append = clickRecordsAppender({ producer, topic, partitionCount: async () => 3 });
      await append(eventLinesOf(events));
    } finally {
      await producer.disconnect();
    }
    // Read back as a data team would (kcat, librdkafka): one click a line, each once, in order, in one partition.
    const { stdout } = await run('kcat', ['-b', brokers.join(','), '-C', '-t', topic, '-e', '-q', '-f', '%p\t%s\n'], {
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const records = stdout.split('\n').filter((line) => line !== '');
    const read = records.map((line) => {
      const tab = line.indexOf('\t');
      // kcat prints a record's first line after its partition, the others as they are.
      return tab >= 0 && /^\d+$/.test(line.slice(0, tab)) ? line.slice(tab + 1) : line;
    });
    const partitions = new Set(
      records.filter((line) => /^\d+\t/.test(line)).map((line) => line.slice(0, line.indexOf('\t'))),
    );
    expect(partitions.size).toBe(1);
    const clicks = read.map((line) => clickRecorded.parse(JSON.parse(line)));
    expect(clicks.map((c) => c.eventId)).toEqual(events.map((e) => e.eventId));
    expect(clicks.map((c) => c.data.userAgent)).toEqual(events.map((e) => e.data.userAgent));
  }, 120_000);
});
