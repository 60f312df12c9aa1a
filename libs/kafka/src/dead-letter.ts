import type { KafkaMessage } from 'kafkajs';
import type { LogProducer } from './log-client';

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
  message: KafkaMessage,
  source: DeadLetterSource,
  reason: string,
): Promise<void> {
  await producer.send({
    topic: deadLetterTopic,
    acks: -1,
    messages: [
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
    ],
  });
}
