/**
 * Query parameters arrive over HTTP as ClickHouse "escaped" text (what
 * `@clickhouse/client` sends as `param_<name>`). chdb's binder takes JS values
 * and escapes strings itself, so each text is turned back into the value whose
 * escaping reproduces what a real server would have parsed.
 */

const TSV_UNESCAPE: Record<string, string> = {
  '\\': '\\',
  '0': '\0',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export class ParamError extends Error {}

/** Maps `{name:Type}` placeholders in a query to their declared types. */
export function declaredParamTypes(sql: string): Map<string, string> {
  const types = new Map<string, string>();
  const placeholder = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*((?:[^{}]|\([^()]*\))+?)\s*\}/g;
  for (const m of sql.matchAll(placeholder)) types.set(m[1]!, m[2]!);
  return types;
}

function isComposite(type: string): boolean {
  return /^(Nullable\()?(Array|Map|Tuple|Nested)\(/.test(type.trim());
}

/** Scalar escaped text: every `\x` escape collapses, as ClickHouse reads it. */
function unescapeScalar(text: string): string {
  return text.replace(/\\(.)/gs, (_m, ch: string) => TSV_UNESCAPE[ch] ?? ch);
}

/**
 * Composite literal (`['a','b']`): backslashes inside are part of the literal's
 * own quoting, so only the TSV escapes chdb re-applies may be undone. Any other
 * escape cannot be carried through chdb's binder faithfully, and is refused
 * rather than silently changed.
 */
function unescapeComposite(name: string, text: string): string {
  return text.replace(/\\(.)/gs, (_m, ch: string) => {
    const raw = TSV_UNESCAPE[ch];
    if (raw === undefined) {
      throw new ParamError(
        `query parameter '${name}': backslash escapes inside composite values are not supported by the local chdb endpoint`,
      );
    }
    return raw;
  });
}

export function decodeParams(sql: string, textParams: Record<string, string>): Record<string, string> {
  const types = declaredParamTypes(sql);
  const values: Record<string, string> = {};
  for (const [name, text] of Object.entries(textParams)) {
    const type = types.get(name);
    values[name] = type !== undefined && isComposite(type) ? unescapeComposite(name, text) : unescapeScalar(text);
  }
  return values;
}
