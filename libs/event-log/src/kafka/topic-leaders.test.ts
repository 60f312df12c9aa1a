import type { Admin } from 'kafkajs';
import { isTopicNotYetKnown, waitForTopicLeaders } from './topic-leaders';

const notYet = (type: string) => Object.assign(new Error(type), { type });
const metadata = (leaders: number[]) => ({
  topics: [{ name: 't', partitions: leaders.map((leader, partitionId) => ({ partitionId, leader })) }],
});

/** An admin whose metadata answers are scripted, one per call (the last repeats). */
function scriptedAdmin(answers: (Error | ReturnType<typeof metadata>)[]) {
  let calls = 0;
  const admin = {
    fetchTopicMetadata: async () => {
      const answer = answers[Math.min(calls++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as Admin;
  return { admin, calls: () => calls };
}

describe('waitForTopicLeaders', () => {
  it('waits while brokers have not heard of the topic or its partitions have no leader, then returns', async () => {
    const { admin, calls } = scriptedAdmin([
      notYet('UNKNOWN_TOPIC_OR_PARTITION'),
      notYet('LEADER_NOT_AVAILABLE'),
      metadata([1, -1]),
      metadata([1, 2]),
    ]);
    await waitForTopicLeaders(admin, ['t'], 5000);
    expect(calls()).toBe(4);
  });

  it('throws any other error at once', async () => {
    const { admin, calls } = scriptedAdmin([notYet('TOPIC_AUTHORIZATION_FAILED')]);
    await expect(waitForTopicLeaders(admin, ['t'], 5000)).rejects.toThrow('TOPIC_AUTHORIZATION_FAILED');
    expect(calls()).toBe(1);
  });

  it('gives up once the time has passed, with the last error', async () => {
    const { admin } = scriptedAdmin([notYet('UNKNOWN_TOPIC_OR_PARTITION')]);
    await expect(waitForTopicLeaders(admin, ['t'], 250)).rejects.toThrow('UNKNOWN_TOPIC_OR_PARTITION');
    const leaderless = scriptedAdmin([metadata([-1])]);
    await expect(waitForTopicLeaders(leaderless.admin, ['t'], 250)).rejects.toThrow('topics without a leader');
  });
});

describe('isTopicNotYetKnown', () => {
  it.each([
    ['UNKNOWN_TOPIC_OR_PARTITION', true],
    ['LEADER_NOT_AVAILABLE', true],
    ['NOT_CONTROLLER', false],
  ])('%s: %p', (type, expected) => expect(isTopicNotYetKnown(notYet(type))).toBe(expected));

  it('is false for errors without a Kafka type', () => {
    expect(isTopicNotYetKnown(new Error('x'))).toBe(false);
    expect(isTopicNotYetKnown(undefined)).toBe(false);
  });
});
