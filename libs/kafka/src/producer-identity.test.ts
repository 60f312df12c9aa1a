import { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { producerIdentityLost } from './producer-identity';

// kafkajs builds these from the broker's error code; its typings only admit a message.
const protocolError = (type: string) =>
  new KafkaJSProtocolError({ type, code: 0, retriable: false, message: type } as unknown as Error);

describe('producerIdentityLost', () => {
  it('recognises the sequence and epoch errors, also when kafkajs wrapped them after its retries', () => {
    expect(producerIdentityLost(protocolError('OUT_OF_ORDER_SEQUENCE_NUMBER'))).toBe(true);
    expect(producerIdentityLost(protocolError('UNKNOWN_PRODUCER_ID'))).toBe(true);
    const wrapped = new KafkaJSNumberOfRetriesExceeded(protocolError('INVALID_PRODUCER_EPOCH'), {
      retryCount: 5,
      retryTime: 2000,
    });
    expect(producerIdentityLost(wrapped)).toBe(true);
  });

  it('leaves other failures to the ordinary retry', () => {
    expect(producerIdentityLost(protocolError('NOT_LEADER_FOR_PARTITION'))).toBe(false);
    expect(producerIdentityLost(new Error('Connection timeout'))).toBe(false);
    expect(producerIdentityLost('a string')).toBe(false);
  });
});
