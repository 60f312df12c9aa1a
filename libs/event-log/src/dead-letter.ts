import type { LogProducer, LogRecord } from './log-client';

export interface DeadLetterSource {
  topic: string;
  partition: number;
  groupId: string;
}

/**
 * Parks a message that can never be processed on the dead-letter topic, with
 * where it came from and why in its headers, so its partition moves on.
 */
export async function parkDeadLetter(
  producer: LogProducer,
  deadLetterTopic: string,
  message: LogRecord,
  source: DeadLetterSource,
  reason: string,
): Promise<void> {
  await producer.append(deadLetterTopic, [
    {
      key: message.key,
      value: message.value,
      headers: {
        ...message.headers,
        'dlq-source-topic': source.topic,
        'dlq-source-partition': String(source.partition),
        'dlq-source-offset': message.offset,
        'dlq-consumer-group': source.groupId,
        'dlq-reason': reason.slice(0, 1000),
      },
    },
  ]);
}
