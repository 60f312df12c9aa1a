import type { LogAdmin } from '../log-client';
import type { EventLog } from './event-log';
import type { GroupCoordinator } from './group-coordinator';

/** Admin questions answered from the log's own files (one node: replication factors do not apply). */
export function embeddedAdmin(log: EventLog, groups: GroupCoordinator): LogAdmin {
  return {
    connect: async () => undefined,
    disconnect: async () => undefined,
    async createMissingTopics(specs) {
      const created: string[] = [];
      for (const { topic, numPartitions } of specs) {
        if (await log.createTopic({ topic, numPartitions })) created.push(topic);
      }
      return created;
    },
    partitionOffsets: async (topic) =>
      log.endOffsets(topic).map((end, partition) => ({ partition, low: '0', high: end.toString() })),
    async committedOffsets(groupId, topic) {
      const committed = (await log.committed(groupId))[topic] ?? {};
      return log.endOffsets(topic).map((_, partition) => ({ partition, offset: committed[String(partition)] ?? '-1' }));
    },
    groupIsActive: async (groupId) => groups.active(groupId),
    deleteGroup: (groupId) => log.deleteGroup(groupId),
  };
}
