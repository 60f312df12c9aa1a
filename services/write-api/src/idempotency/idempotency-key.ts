import { createHash } from 'node:crypto';
import { LIMITS } from '../write-api-errors';

/**
 * Printable ASCII (space to tilde): what a header carries without encoding,
 * and room for a UUID, a ULID or an order number. Node trims surrounding white
 * space from header values, so a key never starts or ends with a space.
 */
const KEY = new RegExp(`^[\\x20-\\x7e]{1,${LIMITS.idempotencyKeyMaxLength}}$`);

/**
 * The Idempotency-Key header: absent (null), a valid key, or invalid (empty,
 * too long, or with other characters). Node joins a header sent twice into
 * one value (`a, b`), which is then one key like any other.
 */
export function parseIdempotencyKey(
  header: string | string[] | undefined,
): { ok: true; key: string | null } | { ok: false; detail: string } {
  if (header === undefined) return { ok: true, key: null };
  if (typeof header !== 'string') return { ok: false, detail: 'Idempotency-Key came more than once.' };
  if (KEY.test(header)) return { ok: true, key: header };
  return { ok: false, detail: keyProblem(header) };
}

/** What is wrong with a key that is not one, for the 400's detail; the key itself is never echoed. */
function keyProblem(key: string): string {
  if (key.length === 0) return 'Idempotency-Key is empty.';
  if (key.length > LIMITS.idempotencyKeyMaxLength)
    return `Idempotency-Key is ${key.length} characters; at most ${LIMITS.idempotencyKeyMaxLength} are taken.`;
  const points = [...key];
  const at = points.findIndex((c) => !/^[\x20-\x7e]$/.test(c));
  const code = points[at]?.codePointAt(0) ?? 0;
  return `Idempotency-Key holds U+${code.toString(16).toUpperCase().padStart(4, '0')} at position ${at + 1}; only printable ASCII is taken.`;
}

type Task = { value: unknown } | { text: string };

/**
 * JSON with every object's keys sorted (by UTF-16 code units, as RFC 8785): bodies differing only in key order or white
 * space are one request. Numbers take JavaScript's shortest form; one too large for a double is written `Infinity`, not
 * JSON's `null`, so it never matches a body with `null`. Written with its own stack, not recursion, so a body nested a
 * hundred thousand deep is hashed like any other.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: Task[] = [{ value }];
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    if ('text' in task) {
      out.push(task.text);
      continue;
    }
    const v = task.value;
    const inOrder: Task[] = [];
    if (Array.isArray(v)) {
      inOrder.push({ text: '[' });
      v.forEach((item: unknown, i) => inOrder.push(...(i > 0 ? [{ text: ',' }] : []), { value: item }));
      inOrder.push({ text: ']' });
    } else if (typeof v === 'object' && v !== null) {
      const record = v as Record<string, unknown>;
      inOrder.push({ text: '{' });
      Object.keys(record)
        .sort()
        .forEach((key, i) =>
          inOrder.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: record[key] }),
        );
      inOrder.push({ text: '}' });
    } else {
      inOrder.push({ text: typeof v === 'number' && !Number.isFinite(v) ? String(v) : (JSON.stringify(v) ?? 'null') });
    }
    for (let i = inOrder.length - 1; i >= 0; i--) stack.push(inOrder[i] as Task);
  }
  return out.join('');
}

/** What makes two requests "the same request": the method, the route and the body's canonical form. */
export function requestHash(method: string, route: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method.toUpperCase(), route]))
    .update('\n')
    .update(canonicalJson(body))
    .digest('hex');
}
