const PENDING = 0;
const HANDLED = 1;
const RELEASED = 2;

/**
 * The records of one partition in hand, in offset order, and how far the partition may be committed: up to the first
 * record not handled yet, never past it. Records are taken in read order and may be handled in any order. A record
 * taken is a number, 9 bytes in typed arrays, since a partition may hold a hundred thousand records for minutes (the
 * preview worker's read-ahead).
 */
export class InOrderCommits {
  /** Offsets taken, as distances from `base` (exact: a partition's offsets never span 2^53). */
  private offsets = new Float64Array(64);
  private states = new Uint8Array(64);
  private base: bigint | null = null;
  /** Entries in the arrays, from index 0; the first is the record taken `dropped`-th. */
  private length = 0;
  private dropped = 0;
  /** Index of the first entry not yet passed by the committable position. */
  private head = 0;
  private position: bigint | null = null;
  private reported: bigint | null = null;

  /** Takes the record at `offset` (above every offset taken before); returns its sequence number, for `settle`. */
  take(offset: bigint): number {
    this.base ??= offset;
    const distance = Number(offset - this.base);
    if (this.length > 0 && distance <= this.offsets[this.length - 1]!) {
      throw new Error(`offset ${offset} taken after ${this.base + BigInt(this.offsets[this.length - 1]!)}`);
    }
    if (this.length === this.offsets.length) this.makeRoom();
    this.offsets[this.length] = distance;
    this.states[this.length] = PENDING;
    this.length++;
    return this.dropped + this.length - 1;
  }

  /**
   * Settles a record taken: handled (it need never be handled again), or
   * released (given up on: it stays unhandled, and the position never passes
   * it). False when it was settled already: only the first call counts.
   */
  settle(sequence: number, handled: boolean): boolean {
    const i = sequence - this.dropped;
    // Before the head: passed, so handled already.
    if (i < this.head || i >= this.length || this.states[i] !== PENDING) return false;
    this.states[i] = handled ? HANDLED : RELEASED;
    if (handled && i === this.head) this.advance();
    return true;
  }

  /** Records taken and not yet passed (handled or not). */
  get size(): number {
    return this.length - this.head;
  }

  /** The offset to commit (the next record to read) when it moved since the last call; null when it did not. */
  nextCommit(): string | null {
    if (!this.hasNextCommit() || this.position === null) return null;
    this.reported = this.position;
    return this.position.toString();
  }

  /** Whether `nextCommit` has an offset to give. */
  hasNextCommit(): boolean {
    return this.position !== null && this.position !== this.reported;
  }

  /** The last offset given was not committed: give it (or a later one) again. */
  commitFailed(): void {
    this.reported = null;
  }

  private advance(): void {
    const from = this.head;
    while (this.head < this.length && this.states[this.head] === HANDLED) this.head++;
    if (this.head > from && this.base !== null) {
      this.position = this.base + BigInt(this.offsets[this.head - 1]!) + 1n;
    }
  }

  /**
   * When full: drops the passed entries if they are half or more (and halves
   * arrays left a quarter full, so a backlog's peak is not kept for good),
   * else doubles the arrays.
   */
  private makeRoom(): void {
    const capacity = this.offsets.length;
    if (this.head * 2 < this.length) return this.resize(capacity * 2, 0);
    const shrink = capacity > 64 && (this.length - this.head) * 4 <= capacity;
    if (shrink) return this.resize(capacity / 2, this.head);
    this.offsets.copyWithin(0, this.head, this.length);
    this.states.copyWithin(0, this.head, this.length);
    this.forget(this.head);
  }

  private resize(capacity: number, from: number): void {
    const offsets = new Float64Array(capacity);
    offsets.set(this.offsets.subarray(from, this.length));
    const states = new Uint8Array(capacity);
    states.set(this.states.subarray(from, this.length));
    this.offsets = offsets;
    this.states = states;
    this.forget(from);
  }

  /** The first `count` entries are gone from the arrays. */
  private forget(count: number): void {
    this.dropped += count;
    this.length -= count;
    this.head -= count;
  }
}
