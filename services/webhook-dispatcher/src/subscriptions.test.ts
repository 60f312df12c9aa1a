import { subscribedTo, type Subscriber } from './subscriptions';

const hook = (webhookId: string, events: string[], createdAt: string): Subscriber => ({
  webhookId,
  events: new Set(events),
  createdAt: new Date(createdAt),
});

describe('who a message goes to', () => {
  const subscribers = [
    hook('all', ['link.created', 'link.clicked'], '2026-12-01T09:00:00.000Z'),
    hook('clicks', ['link.clicked'], '2026-12-01T09:00:00.000Z'),
    hook('newer', ['link.created'], '2026-12-01T11:00:00.000Z'),
  ];

  it('given endpoints of the account, sends to those subscribed to the type and created before the event', () => {
    expect(subscribedTo(subscribers, { type: 'link.created', occurredAt: '2026-12-01T10:00:00.000Z' })).toEqual([
      'all',
    ]);
    expect(subscribedTo(subscribers, { type: 'link.created', occurredAt: '2026-12-01T11:00:00.000Z' })).toEqual([
      'all',
      'newer',
    ]);
    expect(subscribedTo(subscribers, { type: 'link.clicked', occurredAt: '2026-12-01T10:00:00.000Z' })).toEqual([
      'all',
      'clicks',
    ]);
  });

  it('given an account without endpoints, sends to none', () => {
    expect(subscribedTo(undefined, { type: 'link.deleted', occurredAt: '2026-12-01T10:00:00.000Z' })).toEqual([]);
  });
});
