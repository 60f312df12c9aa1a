import { excerpt } from '@shortlink/http';

/** Names people reach for instead of a link's own fields. */
const ALIASES: Readonly<Record<string, string>> = {
  slug: 'customSlug',
  custom_slug: 'customSlug',
  alias: 'customSlug',
  destination: 'url',
  destinationurl: 'url',
  destination_url: 'url',
  link: 'url',
  target: 'url',
  href: 'url',
  uri: 'url',
  longurl: 'url',
  long_url: 'url',
  tags: 'tag',
  label: 'tag',
};

/** Levenshtein distance, for names a typo away (`ulr`, `customslug`). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The field a name was probably meant as: an alias, or a known name at most two edits away. */
export function fieldMeant(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const alias = ALIASES[lower];
  if (alias !== undefined && known.includes(alias)) return alias;
  const reach = lower.length < 3 ? 1 : 2;
  return known.find((k) => distance(lower, k.toLowerCase()) <= reach);
}

/**
 * The first field of a body that is not among `known`, and a sentence saying so,
 * naming the field meant for a near miss; null when every field is known.
 */
export function unknownField(
  body: Record<string, unknown>,
  known: readonly string[],
): { field: string; detail: string } | null {
  const name = Object.keys(body).find((f) => !known.includes(f));
  if (name === undefined) return null;
  const meant = fieldMeant(name, known);
  const list = known.length === 1 ? (known[0] ?? '') : `${known.slice(0, -1).join(', ')} and ${known.at(-1) ?? ''}`;
  // The field is echoed as a detail echoes anything received: short, escaped, without quotes here.
  const field = excerpt(name).slice(1, -1);
  return {
    field,
    detail: `Unknown field ${excerpt(name)}${meant === undefined ? '' : `: did you mean ${meant}?`} ${known.length === 1 ? 'Field' : 'Fields'}: ${list}.`,
  };
}
