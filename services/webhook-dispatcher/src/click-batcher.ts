/** A batch of one key's items, in the order they were added. */
export interface Batch<T> {
  key: string;
  items: T[];
}

export interface ClickBatcherOptions {
  /** A batch is closed when it holds this many items (100 clicks). */
  maxItems: number;
  /** …or when its first item has waited this long (1 s). */
  maxWaitMs: number;
}

export const DEFAULT_CLICK_BATCHING: ClickBatcherOptions = { maxItems: 100, maxWaitMs: 1000 };

/**
 * Groups items by key (an account's clicks) into batches closed at
 * `maxItems` or `maxWaitMs` after their first item, whichever comes first.
 * No timers: the caller passes the clock and asks for `due` batches when
 * `nextDueAt` says.
 */
export class ClickBatcher<T> {
  private readonly open = new Map<string, { items: T[]; since: number }>();

  constructor(private readonly options: ClickBatcherOptions = DEFAULT_CLICK_BATCHING) {}

  /** Adds an item; returns its key's batch if this item filled it. */
  add(key: string, item: T, nowMs: number): Batch<T> | null {
    let batch = this.open.get(key);
    if (!batch) {
      batch = { items: [], since: nowMs };
      this.open.set(key, batch);
    }
    batch.items.push(item);
    if (batch.items.length < this.options.maxItems) return null;
    this.open.delete(key);
    return { key, items: batch.items };
  }

  /** The batches whose first item has waited `maxWaitMs` or more, closed. */
  due(nowMs: number): Batch<T>[] {
    const closed: Batch<T>[] = [];
    // A Map keeps insertion order: the oldest batches come first, so the loop stops at the first young one.
    for (const [key, batch] of this.open) {
      if (nowMs - batch.since < this.options.maxWaitMs) break;
      this.open.delete(key);
      closed.push({ key, items: batch.items });
    }
    return closed;
  }

  /** Every open batch, closed (at shutdown, or to drain). */
  all(): Batch<T>[] {
    const closed = [...this.open].map(([key, batch]) => ({ key, items: batch.items }));
    this.open.clear();
    return closed;
  }

  /** When the oldest open batch falls due, or undefined when none is open. */
  nextDueAt(): number | undefined {
    for (const batch of this.open.values()) return batch.since + this.options.maxWaitMs;
    return undefined;
  }

  /** Items waiting in open batches. */
  get size(): number {
    let n = 0;
    for (const batch of this.open.values()) n += batch.items.length;
    return n;
  }
}
