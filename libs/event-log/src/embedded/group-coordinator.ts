/**
 * One member of a group consumes all of the group's partitions; further
 * members of the same group wait until it leaves, then take over from the
 * committed offsets (what a Kafka rebalance does, with one process).
 */
export class GroupCoordinator {
  private readonly holders = new Map<string, { release: Promise<void> }>();

  /** Resolves once this member holds the group: with how to leave it, or null if it stopped while waiting. */
  async join(groupId: string, stopped: () => boolean): Promise<(() => void) | null> {
    for (;;) {
      const holder = this.holders.get(groupId);
      if (!holder) break;
      await holder.release;
      if (stopped()) return null;
    }
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holders.set(groupId, { release: released });
    return () => {
      this.holders.delete(groupId);
      release();
    };
  }

  active(groupId: string): boolean {
    return this.holders.has(groupId);
  }
}
