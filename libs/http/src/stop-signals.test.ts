import { REPEATED_SIGNAL_MS, stopSignals, type SignalHost, type StopSignal } from './stop-signals';

const GRACE_MS = 10_000;

/** A process with a clock the test moves: signals, exits and log lines are recorded. */
function fakeProcess() {
  const listeners = new Map<StopSignal, () => void>();
  const timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  const exits: number[] = [];
  const lines: string[] = [];
  let now = 0;
  const host: SignalHost = {
    on: (signal, listener) => listeners.set(signal, listener),
    exit: (code) => void exits.push(code),
    now: () => now,
    after: (ms, fn) => {
      const timer = { at: now + ms, fn, cancelled: false };
      timers.push(timer);
      return () => (timer.cancelled = true);
    },
    log: { warn: (_, message) => void lines.push(message), error: (_, message) => void lines.push(message) },
  };
  return {
    host,
    exits,
    lines,
    signal: (signal: StopSignal) => listeners.get(signal)?.(),
    advance(ms: number) {
      now += ms;
      for (const timer of timers) {
        if (!timer.cancelled && timer.at <= now) {
          timer.cancelled = true;
          timer.fn();
        }
      }
    },
  };
}

describe('stop signals', () => {
  it('while starting: the first signal is recorded, not obeyed at once', () => {
    // Given a process still starting
    const proc = fakeProcess();
    const signals = stopSignals(proc.host, GRACE_MS);

    // When SIGTERM comes
    proc.signal('SIGTERM');

    // Then it keeps running, and the start learns it must go no further
    expect(proc.exits).toEqual([]);
    expect(signals.requestedWhileStarting()).toBe('SIGTERM');
  });

  it('hands a signal received while starting to the close, at once', () => {
    // Given a process signalled while starting
    const proc = fakeProcess();
    const signals = stopSignals(proc.host, GRACE_MS);
    proc.signal('SIGINT');

    // When it gets to its close
    const closes: StopSignal[] = [];
    signals.handOver((signal) => closes.push(signal));

    // Then the close runs for that signal, and the start's time limit stops applying
    expect(closes).toEqual(['SIGINT']);
    proc.advance(GRACE_MS * 2);
    expect(proc.exits).toEqual([]);
  });

  it('ends a start that does not reach its close within the grace period, with exit 1', () => {
    // Given a start waiting on something away, signalled
    const proc = fakeProcess();
    stopSignals(proc.host, GRACE_MS);
    proc.signal('SIGTERM');

    // When the grace period passes without the close
    proc.advance(GRACE_MS - 1);
    expect(proc.exits).toEqual([]);
    proc.advance(1);

    // Then the process exits 1, and says why
    expect(proc.exits).toEqual([1]);
    expect(proc.lines.at(-1)).toMatch(/did not end within the grace period/);
  });

  it('takes a signal repeated within moments as the same request (Ctrl-C under npm start)', () => {
    const proc = fakeProcess();
    const signals = stopSignals(proc.host, GRACE_MS);
    proc.signal('SIGINT');
    proc.advance(REPEATED_SIGNAL_MS - 1);
    proc.signal('SIGINT');
    expect(proc.exits).toEqual([]);
    expect(signals.requestedWhileStarting()).toBe('SIGINT');
  });

  it('exits at once on a second signal sent on purpose while starting', () => {
    const proc = fakeProcess();
    stopSignals(proc.host, GRACE_MS);
    proc.signal('SIGINT');
    proc.advance(REPEATED_SIGNAL_MS);
    proc.signal('SIGTERM');
    expect(proc.exits).toEqual([1]);
  });

  it('once serving, every signal goes to the close, which deals with repeats itself', () => {
    // Given a process that started without a signal
    const proc = fakeProcess();
    const signals = stopSignals(proc.host, GRACE_MS);
    const closes: StopSignal[] = [];
    signals.handOver((signal) => closes.push(signal));
    expect(closes).toEqual([]);

    // When signalled twice, far apart
    proc.signal('SIGTERM');
    proc.advance(5_000);
    proc.signal('SIGTERM');

    // Then both reach the close and the process is not ended here
    expect(closes).toEqual(['SIGTERM', 'SIGTERM']);
    expect(proc.exits).toEqual([]);
    expect(signals.requestedWhileStarting()).toBeUndefined();
  });
});
