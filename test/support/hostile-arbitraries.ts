import fc from 'fast-check';
import type { RawRequest } from './raw-http';

/**
 * Generators of what hostile and careless clients send: request bodies,
 * slugs, URLs, tags, headers, query strings and paths, for every endpoint.
 * Each case says what it is allowed to change: a `clean` case is hostile only
 * in what must not matter (odd but valid headers, an encoded slug), so its
 * outcome is known; any other case may be refused, but only as the contract
 * says (a JSON 4xx), never with a 5xx, a hang or a link it should not make.
 */

export type Account = 'pro' | 'free';
export const ACCOUNTS: readonly Account[] = ['pro', 'free'];

export type Endpoint =
  | 'create'
  | 'bulk'
  | 'read'
  | 'update'
  | 'delete'
  | 'list'
  | 'analytics'
  | 'redirect'
  | 'health'
  | 'any'
  | 'webhook'
  | 'domain';

export interface HostileCase {
  endpoint: Endpoint;
  request: RawRequest;
  /** The account the first Authorization line carries a key of: the only one it may authenticate as. */
  account: Account | null;
  /** A well-formed bearer of that key, so the request must authenticate. */
  authenticates: boolean;
  /** Hostile only where it must not matter: the outcome is what a plain request gets. */
  clean: boolean;
  /** For reads, changes, deletions, analytics and redirects: the slug the path names, when it names one plainly. */
  slug?: string;
  /** For analytics: the `range` the query gives, when it is one plain value (absent: the default). */
  range?: string | null;
}

/** What the generators need from the running test: the keys, and the links made so far. */
export interface HostileWorld {
  keys: Readonly<Record<Account, string>>;
  /** Slugs of links created so far, by owner (read when a case is generated). */
  slugs: Readonly<Record<Account, readonly string[]>>;
  /** Ids of the webhooks created so far, by owner. */
  webhooks: Readonly<Record<Account, readonly string[]>>;
  /** Hostnames of the domains added so far, by owner. */
  domains: Readonly<Record<Account, readonly string[]>>;
}

// ---------------------------------------------------------------- text

const CONTROL = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009f',
];
/** Text no store can hold (U+0000, lone surrogates) and text that fools eyes and parsers. */
const POISON = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\u2028',
  '\u202e',
  '\u200b',
];
const PRINTABLE = ['a', 'Z', '9', '-', '_', '.', '/', '%', '?', '#', '&', '=', '@', ':', ';', '\\', '"', "'", '<', '>'];
const WIDE = [' ', '€', 'ü', '日本', '😀', 'é', 'İ', 'ß', 'ﬀ', 'Ω', '\u0301'];

const anyCodePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });

/** Any text at all: printable, wide, control characters, U+0000 and lone surrogates. */
export const hostileText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...PRINTABLE) },
      { weight: 2, arbitrary: fc.constantFrom(...WIDE) },
      { weight: 1, arbitrary: fc.constantFrom(...CONTROL, ...POISON) },
      { weight: 1, arbitrary: anyCodePoint },
    ),
    maxLength,
  });

/** Text a header can carry as it is: no control characters (any other code point goes out as UTF-8 obs-text). */
const headerText = (maxLength = 40): fc.Arbitrary<string> =>
  fc
    .string({
      unit: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...PRINTABLE, ' ', ',', '(', ')', '[', ']', '{', '}') },
        { weight: 1, arbitrary: fc.constantFrom(...WIDE) },
        { weight: 1, arbitrary: anyCodePoint },
      ),
      maxLength,
    })
    // eslint-disable-next-line no-control-regex -- control characters are what a valid header value cannot hold
    .map((s) => s.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '').trim());

/** A long run of one character: past every limit (URL 2048, tag 100, body 64 KiB). */
const hugeText = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('a', 'é', '😀', '%', '-', '\u0000', '\ud800'), fc.integer({ min, max }))
    .map(([c, n]) => c.repeat(Math.ceil(n / c.length)));

// ---------------------------------------------------------------- slugs, URLs, tags

/**
 * Slugs of the right shape that are off the reserved list (no reserved word starts with `zq`). Drawn
 * again they can repeat (fast-check favours short strings), so a test that must create one uses
 * `unusedSlug` instead.
 */
export const freshSlug = fc.stringMatching(/^[a-z0-9-]{2,28}$/).map((s) => `zq${s}`);

let unusedSlugs = 0;
/** A slug no link has: no generated slug starts with `zr`, and the clock and a count make it new. */
export const unusedSlug = (): string => `zr${Date.now().toString(36)}-${(unusedSlugs++).toString(36)}`;

const RESERVED = ['api', 'admin', 'docs', 'healthz', 'metrics', 'login', 'favicon.ico', 'robots.txt', '.well-known'];

/** A slug of a link already made (by the given owner, or either), or a fresh one when there is none yet. */
const existingSlug = (world: HostileWorld, owner?: Account): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(...ACCOUNTS), fc.nat(), freshSlug).map(([who, i, fallback]) => {
    const slugs = world.slugs[owner ?? who];
    return slugs.length > 0 ? (slugs[i % slugs.length] as string) : fallback;
  });

const invalidSlug = fc.oneof(
  fc.constantFrom('', 'ab', 'a'.repeat(31), 'Upper', 'has space', 'under_score', 'dot.dot', 'a/b', '..', '%2e%2e'),
  fc.constantFrom('ünï', '😀😀😀', 'abc\u0000', 'abc\n', ' abc', 'abc ', '\ud800bc', '-'.repeat(31)),
  hostileText(40),
  hugeText(31, 5000),
);

/** URLs the contract accepts: http(s), a host that is not this service, at most 2048 characters. */
export const cleanUrl: fc.Arbitrary<string> = fc.oneof(
  fc
    .webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
    .filter((url) => url.length <= 2048 && !/localhost|sho\.rt/i.test(new URL(url).hostname)),
  fc
    .tuple(
      fc.constantFrom(
        'https://example.com',
        'http://example.org:8080',
        'https://exämple.com',
        'https://xn--mnchen-3ya.de',
      ),
      fc.string({ unit: fc.constantFrom(...PRINTABLE.filter((c) => c !== '"'), ...WIDE.filter((c) => c !== ' ')) }),
    )
    .map(([origin, path]) => `${origin}/${path}`),
  fc.constantFrom(
    'https://example.com\\@evil.example/',
    'https://example.com/a b c',
    'https://example.com/?q=<script>alert(1)</script>',
    'https://例え.テスト/パス?クエリ=値#断片',
    'https://example.com/%zz%%/..%2f../',
    'HTTPS://EXAMPLE.COM/UPPER',
    'https://example.com:443/default-port',
    'http://[2001:db8::1]/ipv6',
    'https://8.8.8.8/ip',
  ),
);

const hostileUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'not a url',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'ftp://example.com/file',
    'file:///etc/passwd',
    'https://',
    '//example.com/',
    'https:example.com',
    'https://user:pass@example.com/',
    'https://user@example.com/',
    'https://sho.rt/self',
    'http://localhost:3000/x',
    'http://127.0.0.1/',
    'http://0x7f.1/',
    'http://[::1]/',
    'http://0.0.0.0/',
    'https://example.com:99999/',
    'http://a b.com/',
    ' https://example.com/',
    'https://example.com/ ',
    'https://example.com/\t',
    'https://example.com/\u0000',
    'https://example.com/\ud800',
    'https://example.com/\u0085',
  ),
  fc.tuple(cleanUrl, hostileText(30)).map(([url, tail]) => url + tail),
  fc.tuple(hostileText(10), cleanUrl).map(([head, url]) => head + url),
  fc.integer({ min: 2030, max: 2070 }).map((n) => `https://example.com/${'a'.repeat(n - 20)}`),
  hugeText(2049, 70_000).map((s) => `https://example.com/${s}`),
  hostileText(60),
);

export const cleanTag: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(...PRINTABLE, ...WIDE),
  minLength: 1,
  maxLength: 50,
});

const hostileTag: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  hostileText(120),
  hugeText(101, 60_000),
  fc.constantFrom('a\u0000b', '\ud800', 'tab\there', 'line\nbreak', '\u009f', 'x'.repeat(100), 'x'.repeat(101)),
);

// ---------------------------------------------------------------- JSON bodies

/** A JSON value of the wrong kind: numbers at the edges, arrays, objects, booleans. */
const wrongType: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-0', '1e308', '1e999', '-1', '3.14', 'true', 'false', '[]', '{}', '[null]', '""'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

/** Nesting deep enough to overflow a recursive walk, within the 64 KiB body limit and past it. */
const deeplyNested: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 50, max: 40_000 }), fc.constantFrom('array', 'object', 'mixed'))
  .map(([depth, shape]) =>
    shape === 'array'
      ? '['.repeat(depth) + ']'.repeat(depth)
      : shape === 'object'
        ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
        : '[{"a":'.repeat(depth / 2) + '"\\u0000"' + '}]'.repeat(depth / 2),
  );

/** A field's value as JSON text: usually a string of the kind asked for, sometimes anything at all. */
const field = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: text.map((s) => JSON.stringify(s)) },
    { weight: 1, arbitrary: fc.constant('null') },
    { weight: 1, arbitrary: wrongType },
    { weight: 1, arbitrary: deeplyNested },
  );

/** Keys that poison prototypes, shadow fields, or are no text a store can hold. */
const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'url', 'customSlug', 'tag', 'toString', 'hasOwnProperty'),
  fc.constantFrom('', ' ', 'URL', 'custom_slug', '\u0000', '\ud800', 'a'.repeat(1000)),
  hostileText(20),
);
const hostileValue = fc.oneof(
  fc.constantFrom('{"prototype":{"polluted":true}}', '{"polluted":true}', '{"__proto__":{"polluted":true}}'),
  wrongType,
  hostileText(30).map((s) => JSON.stringify(s)),
);

/** A rule whose parts are each clean or hostile: conditions, values and destinations, as JSON text. */
const ruleText = fc
  .record({
    kind: fc.constantFrom('device', 'os', 'country', 'language', 'query', '__proto__', 'constructor', 'planet', ''),
    values: fc.oneof(
      fc.constantFrom('["mobile"]', '["DE","AT"]', '["de"]', '[]', '"mobile"', 'null', '{}', '[1,2]', '["\\u0000"]'),
      fc.constantFrom(
        '{"name":"src","values":["mail"]}',
        '{"name":"","values":[]}',
        '{"name":"\\ud800","values":["x"]}',
      ),
      hostileText(30).map((t) => JSON.stringify([t])),
      fc.nat({ max: 80 }).map((n) => JSON.stringify(Array.from({ length: n }, () => 'DE'))),
    ),
    destination: fc.oneof(
      cleanUrl.map((u) => JSON.stringify(u)),
      hostileUrl.map((u) => JSON.stringify(u)),
      wrongType,
    ),
  })
  .map(
    ({ kind, values, destination }) => `{"when":{${JSON.stringify(kind)}:${values}},"destinationUrl":${destination}}`,
  );

/** `rules` as a body may send them: a few rules, too many, a list of no rules, or no list at all. */
const hostileRules = fc.oneof(
  fc.array(ruleText, { maxLength: 4 }).map((rules) => `[${rules.join(',')}]`),
  fc
    .constantFrom(21, 1000, 100_000)
    .map(
      (n) => `[${Array(n).fill('{"when":{"device":["mobile"]},"destinationUrl":"https://example.com"}').join(',')}]`,
    ),
  fc.constantFrom('[{}]', '[{"when":{}}]', '[null]', '[[]]', '{"0":{}}', '"rules"', '[{"when":{"device":["mobile"]}}]'),
  wrongType,
  deeplyNested,
);

/** `variants` as a body may send them: weights off 100, too few or many, URLs twice, odd types. */
const hostileVariants = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof(cleanUrl, hostileUrl), fc.oneof(fc.integer({ min: -5, max: 120 }), fc.double())), {
      maxLength: 6,
    })
    .map((vs) => JSON.stringify(vs.map(([destinationUrl, weight]) => ({ destinationUrl, weight })))),
  fc.constantFrom(
    '[{"destinationUrl":"https://example.com/a","weight":50},{"destinationUrl":"https://example.com/a","weight":50}]',
    '[{"destinationUrl":"https://example.com/a","weight":50.5},{"destinationUrl":"https://example.com/b","weight":49.5}]',
    '[{"destinationUrl":"https://example.com/a","weight":100}]',
    '[{"destinationUrl":"https://example.com/a","weight":50,"__proto__":{"x":1}},{"destinationUrl":"https://example.com/b","weight":50}]',
    '[]',
    'null',
  ),
  wrongType,
  deeplyNested,
);

export interface BodyCase {
  body: string | Uint8Array;
  /** A plain, valid create: the outcome is a 201 (or a 409 when its slug is taken). */
  clean: boolean;
}

const objectText = (fields: ReadonlyArray<readonly [string, string]>): string =>
  `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/** The fields of a plain, valid create; now and then with a slug already taken (a 409, whoever holds it). */
const cleanCreateFields = (world: HostileWorld) =>
  fc.record(
    {
      url: cleanUrl,
      customSlug: fc.oneof({ weight: 3, arbitrary: freshSlug }, { weight: 1, arbitrary: existingSlug(world) }),
      tag: cleanTag,
    },
    { requiredKeys: ['url'] },
  );

/** Create bodies: valid-ish objects with one or more hostile parts, and things that are no JSON object at all. */
export function createBody(world: HostileWorld): fc.Arbitrary<BodyCase> {
  const cleanFields = cleanCreateFields(world);
  const clean: fc.Arbitrary<BodyCase> = cleanFields.map((fields) => ({
    body: objectText(Object.entries(fields).map(([k, v]) => [k, JSON.stringify(v)] as const)),
    clean: true,
  }));
  const validIsh: fc.Arbitrary<BodyCase> = fc
    .record(
      {
        url: fc.oneof({ weight: 3, arbitrary: field(cleanUrl) }, { weight: 2, arbitrary: field(hostileUrl) }),
        customSlug: fc.oneof(
          field(freshSlug),
          field(existingSlug(world)),
          field(fc.constantFrom(...RESERVED)),
          field(fc.stringMatching(/^[a-z0-9]{3}$/)),
          field(invalidSlug),
        ),
        tag: fc.oneof(field(cleanTag), field(hostileTag)),
        rules: hostileRules,
        variants: hostileVariants,
        domain: field(domainHostname),
        extra: fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...known }) => ({
      body: objectText([...Object.entries(known), ...(extra ?? [])]),
      clean: false,
    }));
  const notAnObject: fc.Arbitrary<BodyCase> = fc
    .oneof(
      wrongType,
      deeplyNested,
      fc.constantFrom('', ' ', 'null', '"https://example.com"', '["https://example.com"]', '{', '{"url":', '}{'),
      fc.constantFrom('{"url":"https://example.com",}', "{'url':'https://example.com'}", '{url:"https://example.com"}'),
      fc.constantFrom(
        '{"url":"https://example.com"} {"url":"https://example.org"}',
        '{"url":"\\x41"}',
        '{"url":"\\u12"}',
      ),
      fc.constantFrom('\ufeff{"url":"https://example.com"}', '/*c*/{"url":"https://example.com"}', '{"url":NaN}'),
      hostileText(200),
    )
    .map((body) => ({ body, clean: false }));
  const bytes: fc.Arbitrary<BodyCase> = fc.oneof(
    fc.uint8Array({ maxLength: 512 }).map((body) => ({ body, clean: false })),
    // Bytes that are no UTF-8 inside a string: a lone continuation byte, an overlong slash, an encoded surrogate.
    fc
      .tuple(
        cleanUrl,
        fc.constantFrom([0xff], [0x80], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]),
      )
      .map(([url, bad]) => ({
        body: Buffer.concat([Buffer.from(`{"url":"${url}`), Buffer.from(bad), Buffer.from('"}')]),
        clean: false,
      })),
  );
  const truncated: fc.Arbitrary<BodyCase> = fc.tuple(cleanFields, fc.nat()).map(([fields, cut]) => {
    const text = JSON.stringify(fields);
    return { body: text.slice(0, cut % text.length), clean: false };
  });
  const huge: fc.Arbitrary<BodyCase> = hugeText(60_000, 70_000).map((s) => ({
    body: JSON.stringify({ url: 'https://example.com/', tag: s }),
    clean: false,
  }));
  return fc.oneof(
    { weight: 4, arbitrary: clean },
    { weight: 8, arbitrary: validIsh },
    { weight: 2, arbitrary: notAnObject },
    { weight: 1, arbitrary: bytes },
    { weight: 1, arbitrary: truncated },
    { weight: 1, arbitrary: huge },
  );
}

/**
 * `PATCH` bodies: a plain change of `url` and/or `tag` (`tag: null` removes
 * it), and everything a create may be sent, which a change must refuse as
 * creation does (a `customSlug` is an unknown field here).
 */
export function updateBody(world: HostileWorld): fc.Arbitrary<BodyCase> {
  const change = fc
    .record({ url: cleanUrl, tag: fc.option(cleanTag, { nil: null }) }, { requiredKeys: [] })
    .filter((fields) => Object.keys(fields).length > 0)
    .map((fields) => ({ body: JSON.stringify(fields), clean: true }));
  const odd = fc
    .constantFrom('{}', '{"url":null}', '{"tag":""}', '{"slug":"x"}', '{"url":"https://example.com","id":"x"}')
    .map((body) => ({ body, clean: false }));
  return fc.oneof(
    { weight: 4, arbitrary: change },
    { weight: 5, arbitrary: createBody(world).map((b) => ({ ...b, clean: false })) },
    { weight: 1, arbitrary: odd },
  );
}

/**
 * Bulk bodies: a plain batch of valid creates (each item's outcome known), a
 * batch with hostile items among them, and shapes that are no batch at all.
 */
export function bulkBody(world: HostileWorld): fc.Arbitrary<BodyCase> {
  const plain = fc
    .array(cleanCreateFields(world), { minLength: 1, maxLength: 5 })
    .map((links) => ({ body: JSON.stringify({ links }), clean: true }));
  const textItem = createBody(world).filter((b): b is { body: string; clean: boolean } => typeof b.body === 'string');
  const mixed = fc
    .array(
      fc.oneof(
        cleanCreateFields(world).map((f) => JSON.stringify(f)),
        textItem.map((b) => b.body),
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    )
    .map((items) => ({ body: `{"links":[${items.join(',')}]}`, clean: false }));
  const shapes = fc
    .oneof(
      fc.constantFrom('{"links":[]}', '{"links":{}}', '{"links":null}', '{}', '[]', '{"links":"x"}', '{"links":[1]}'),
      fc.constantFrom('{"links":[null]}', '{"links":[[]]}', '{"links":[{}]}', '{"__proto__":{"links":[]}}'),
      fc
        .integer({ min: 101, max: 130 })
        .map((n) => JSON.stringify({ links: Array(n).fill({ url: 'https://a.example' }) })),
    )
    .map((body) => ({ body, clean: false }));
  return fc.oneof({ weight: 3, arbitrary: plain }, { weight: 4, arbitrary: mixed }, { weight: 2, arbitrary: shapes });
}

// ---------------------------------------------------------------- headers

interface AuthCase {
  lines: readonly string[];
  account: Account | null;
  authenticates: boolean;
}

/** Authorization as sent right, sent wrong, sent twice, or not at all; each account's key side by side. */
export function authorization(world: HostileWorld): fc.Arbitrary<AuthCase> {
  const keyOf = fc.constantFrom(...ACCOUNTS);
  const valid = fc
    .tuple(keyOf, fc.constantFrom('Bearer ', 'bearer ', 'BEARER ', 'Bearer   ', 'BeArEr '))
    .map(([account, scheme]) => ({ lines: [scheme + world.keys[account]], account, authenticates: true }));
  const spoiled = fc
    .tuple(
      keyOf,
      fc.constantFrom<(key: string) => string>(
        (k) => `Bearer ${k}x`,
        (k) => `Bearer ${k.slice(0, -1)}`,
        (k) => `Bearer ${k.toUpperCase()}`,
        (k) => `Bearer ${k} ${k}`,
        (k) => `Bearer ${k},`,
        (k) => `Bearer "${k}"`,
        (k) => `Bearer\t${k}`,
        (k) => `Bearer ${k}\u00a0`,
        (k) => `Bearer${k}`,
        (k) => `Basic ${Buffer.from(`${k}:`).toString('base64')}`,
        (k) => `Token ${k}`,
        (k) => k,
        (k) => `Bearer ${encodeURIComponent(k)}%00`,
      ),
    )
    .map(([account, spoil]) => ({ lines: [spoil(world.keys[account])], account, authenticates: false }));
  const keyless = fc
    .oneof(
      fc.constantFrom('Bearer', 'Bearer ', 'Basic', 'Bearer null', 'Bearer undefined', 'Bearer slk_', ''),
      fc.stringMatching(/^[A-Za-z0-9_-]{32}$/).map((s) => `Bearer slk_${s}`),
      headerText(60).map((s) => `Bearer ${s}`),
      headerText(60),
      fc.integer({ min: 1000, max: 8000 }).map((n) => `Bearer slk_${'A'.repeat(n)}`),
    )
    .map((line) => ({ lines: [line], account: null, authenticates: false }));
  // Node keeps the first of repeated Authorization lines; the service refuses both (two keys, maybe two accounts).
  const twice = fc.tuple(keyOf, keyOf).map(([first, second]) => ({
    lines: [`Bearer ${world.keys[first]}`, `Bearer ${world.keys[second]}`],
    account: null,
    authenticates: false,
  }));
  const none = fc.constant({ lines: [], account: null, authenticates: false });
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: 3, arbitrary: spoiled },
    { weight: 3, arbitrary: keyless },
    { weight: 1, arbitrary: twice },
    { weight: 2, arbitrary: none },
  );
}

export interface HeaderCase {
  headers: Array<readonly [string, string]>;
  /** Valid HTTP whose oddity must not change the outcome. */
  clean: boolean;
}

const ipText = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4().map((ip) => `${ip}:${ip.length * 997}`),
  fc.ipV6().map((ip) => `[${ip}]:443`),
  fc.constantFrom('::ffff:203.0.113.77', 'fe80::1%eth0', '2001:DB8::77', 'unknown', '_hidden', '999.999.999.999'),
  headerText(30),
);

/** Headers that are odd but valid: spoofed proxies, bots, garbage referrers, any Host. */
const benignHeader: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.array(ipText, { minLength: 1, maxLength: 6 }).map((ips) => ['X-Forwarded-For', ips.join(', ')] as const),
  fc.constantFrom(',,,', ', , ,', '1.2.3.4,,', '   ').map((v) => ['X-Forwarded-For', v] as const),
  fc
    .oneof(headerText(40), fc.constantFrom('javascript:alert(1)', 'android-app://com.slack', 'https://ü.example/'))
    .map((v) => ['Referer', v] as const),
  fc
    .oneof(
      headerText(100),
      fc.constantFrom(
        'Googlebot/2.1 (+http://www.google.com/bot.html)',
        'curl/8.0',
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        '',
      ),
      fc.integer({ min: 500, max: 4000 }).map((n) => 'Mozilla/5.0 '.repeat(n / 12)),
    )
    .map((v) => ['User-Agent', v] as const),
  fc
    .constantFrom('X-Forwarded-Host', 'X-Forwarded-Proto', 'X-Forwarded-Port', 'Forwarded', 'X-Real-IP')
    .chain((name) => headerText(40).map((v) => [name, v] as const)),
  fc
    .constantFrom('Accept', 'Accept-Language', 'Accept-Encoding', 'Cookie', 'Range', 'If-None-Match', 'X-Request-Id')
    .chain((name) => headerText(60).map((v) => [name, v] as const)),
  fc.constantFrom(
    ['Sec-Purpose', 'prefetch'] as const,
    ['Purpose', 'prefetch'] as const,
    ['X-Moz', 'prefetch'] as const,
  ),
  fc.tuple(fc.stringMatching(/^[A-Za-z0-9-]{1,24}$/), headerText(40)).map(([n, v]) => [`X-${n}`, v] as const),
);

const ODD_HOSTS = ['sho.rt', 'localhost:3000', '127.0.0.1', 'evil.example', '[::1]:99999', 'ü.example', '', 'a:b:c'];
const host = fc.oneof(
  { weight: 6, arbitrary: fc.constant('127.0.0.1') },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_HOSTS) },
  { weight: 1, arbitrary: headerText(40) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 4000 }).map((n) => 'h'.repeat(n)) },
);

/** Headers that make the request itself wrong: what the HTTP layer must refuse in JSON. */
const breakingHeaders: fc.Arbitrary<Array<readonly [string, string]>> = fc.oneof(
  fc.constantFrom<Array<readonly [string, string]>>(
    [['Bad Header', 'x']],
    [['X:Y', 'x']],
    [['Ü-Header', 'x']],
    [['X-Nul', 'a\u0000b']],
    [['X-Ctl', 'a\u0001b']],
    [['X-Del', 'a\u007fb']],
    [['X-Cr', 'a\rb']],
    [['X-Lf', 'a\nb']],
    [['X-Fold', 'a\r\n b']],
    [['X-Injected', 'a\r\nX-Other: b']],
    [['Expect', '100-continue']],
    [['Expect', 'the-unexpected']],
    [['Transfer-Encoding', 'chunked, gzip']],
    [['Upgrade', 'websocket']],
    [
      ['Connection', 'Upgrade, HTTP2-Settings'],
      ['Upgrade', 'h2c'],
      ['HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA'],
    ],
  ),
  hostileText(30).map((v) => [['X-Raw', v] as const]),
  fc.integer({ min: 12_000, max: 100_000 }).map((n) => [['X-Big', 'b'.repeat(n)] as const]),
  fc.integer({ min: 200, max: 1200 }).map((n) => Array.from({ length: n }, (_, i) => [`X-Many-${i}`, 'v'] as const)),
);

/** Host (or its absence), auth lines, benign extras and sometimes something breaking, in a shuffled order. */
export function headersFor(auth: AuthCase): fc.Arbitrary<HeaderCase> {
  return fc
    .record({
      host: fc.option(host, { freq: 30, nil: undefined }),
      extras: fc.array(benignHeader, { maxLength: 4 }),
      breaking: fc.option(breakingHeaders, { freq: 6, nil: undefined }),
      authFirst: fc.boolean(),
    })
    .map(({ host: hostValue, extras, breaking, authFirst }) => {
      const auth_ = auth.lines.map((line) => ['Authorization', line] as const);
      const hostLine = hostValue === undefined ? [] : [['Host', hostValue] as const];
      const headers = authFirst
        ? [...hostLine, ...auth_, ...extras, ...(breaking ?? [])]
        : [...hostLine, ...extras, ...(breaking ?? []), ...auth_];
      // Well under Node's 16 KiB for the request line and headers together, or it is a 431.
      const size = headers.reduce((n, [k, v]) => n + Buffer.byteLength(k + v) + 4, 0);
      return { headers, clean: hostValue !== undefined && breaking === undefined && size < 12_000 };
    });
}

// ---------------------------------------------------------------- paths and queries

/** A path segment naming a slug some other way than plainly, or naming nothing a slug can be. */
const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '.', '..', '%2e', '%2e%2e', '%2F', '..%2F..%2Fetc%2Fpasswd', '%252F', '%5C', '\\', '//', '*'),
  fc.constantFrom('%', '%%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%00', '%0d%0a', '%FF', '%u0041', '%%32%65'),
  fc.constantFrom(';jsessionid=1', 'a;b', '~', '$', '!', "'", '(', ')', '@', ':', 'a:b', '[', ']', '{}', '|', '^', '`'),
  hostileText(30).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
  // Raw non-ASCII and spaces on the request line: not HTTP.
  fc.constantFrom('ü', '日本', '😀', 'a b', '\t', 'a\u0000b', 'a\u007fb'),
  fc.integer({ min: 31, max: 20_000 }).map((n) => 'a'.repeat(n)),
);

export interface SlugPath {
  segment: string;
  /** The slug the segment names plainly (as the server will decode it), or undefined. */
  slug?: string;
  clean: boolean;
}

/** A path segment for a slug: a link of either account, one that does not exist, or no slug at all. */
export function slugSegment(world: HostileWorld): fc.Arbitrary<SlugPath> {
  const existing = existingSlug(world);
  return fc.oneof(
    { weight: 6, arbitrary: existing.map((slug) => ({ segment: slug, slug, clean: true })) },
    {
      weight: 2,
      // Percent-encoded letters name the same slug.
      arbitrary: existing.map((slug) => ({
        segment: [...slug].map((c, i) => (i % 2 === 0 ? `%${c.charCodeAt(0).toString(16)}` : c)).join(''),
        slug,
        clean: true,
      })),
    },
    { weight: 1, arbitrary: existing.map((slug) => ({ segment: slug.toUpperCase(), clean: false })) },
    { weight: 2, arbitrary: freshSlug.map((slug) => ({ segment: slug, slug, clean: true })) },
    { weight: 1, arbitrary: fc.constantFrom(...RESERVED).map((segment) => ({ segment, clean: false })) },
    { weight: 4, arbitrary: hostileSegment.map((segment) => ({ segment, clean: false })) },
  );
}

/** Analytics `range`: the four, their near misses, repeats, arrays, and garbage; with unknown parameters. */
export const analyticsQuery: fc.Arbitrary<{ query: string; range?: string | null; clean: boolean }> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ query: '', range: null, clean: true }) },
  {
    weight: 6,
    arbitrary: fc.constantFrom('7d', '30d', '90d', 'all').map((r) => ({ query: `?range=${r}`, range: r, clean: true })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('7d', '30d', '90d', 'all'), fc.stringMatching(/^[a-z]{1,8}$/), headerText(10))
      .map(([r, name, value]) => ({
        query: `?${name === 'range' ? 'x' : name}=${encodeURIComponent(value)}&range=${r}`,
        range: r,
        clean: true,
      })),
  },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc.constantFrom('?range=', '?range', '?range=7D', '?range=7d&range=30d', '?range=1y', '?range=-7d', '?range=7'),
        fc.constantFrom('?range[]=7d', '?range[0]=7d', '?range[a]=7d', '?range.x=7d', '?__proto__[range]=90d'),
        fc.constantFrom('?constructor[prototype][range]=all', '?range=%', '?range=%zz', '?range=%00', '?range=7d%00'),
        fc.constantFrom('?range=%ED%A0%80', '?range=7d#all', '?&&&=&', '?=7d', '?range=7d;range=90d', '?RANGE=90d'),
        fc.constantFrom('?range=%37d', '?range=+7d', '?range=7d+', '?range=ALL', '?range=all%20'),
        hostileText(20).map((s) => `?range=${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))}`),
        fc.integer({ min: 100, max: 15_000 }).map((n) => `?range=${'7'.repeat(n)}`),
      )
      .map((query) => ({ query, clean: false })),
  },
);

/** A query string anywhere: nothing an endpoint may trip over. */
/** A hostname to add: a plain one now and then, else every spelling the hostname rules name, and noise. */
const domainHostname: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(40).map((n) => `brand-${n}.example.com`) },
  fc.constantFrom(
    'Brand-1.Example.COM.',
    'brand-2.example.com:8443',
    'bücher-3.example.com',
    'xn--bcher-kva.example.com',
    '\u0430pple.example.com', // a Cyrillic "а" among Latin letters
    '127.0.0.1',
    '0x7f.1',
    '2130706433',
    '[::1]',
    '::1',
    'sho.rt',
    'SHO.RT.',
    'com',
    'co.uk',
    'localhost',
    'printer.local',
    'a..example.com',
    '.example.com',
    'x_y.example.com',
    `${'a'.repeat(64)}.example.com`,
    'example.com/path',
    'https://example.com',
    'exa mple.com',
    'ex\u0000ample.com',
    '.',
    '',
  ),
  hostileText(60),
  hugeText(254, 3000),
);

/**
 * Whether a query names a domain: the one parameter a link's routes read besides their own, since it names which
 * link (another query is ignored, and the request is as clean as without it).
 */
const namesDomain = (query: string): boolean => /[?&]domain(?:[=&[]|$)/.test(query);

const anyQuery = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(fc.stringMatching(/^[a-z_]{1,8}$/), headerText(12)), { minLength: 1, maxLength: 4 })
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '??', '?%', '?a=%zz', '?__proto__=1', '?x=1#frag', '?a[b][c]=d') },
  // A link on a branded domain is named by `?domain=`: every spelling of a hostname, noise, and the name twice.
  {
    weight: 1,
    arbitrary: fc
      .oneof(domainHostname, headerText(20))
      .map((v) => `?domain=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, 'x'))}`)
      .chain((q) => fc.constantFrom(q, `${q}&domain=brand-1.example.com`, `${q}&domain[]=x`)),
  },
);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'SEARCH'];
const BAD_METHODS = ['get', 'FOO', 'G ET', 'PRI', '', 'GET\u0000', 'ÜBER'];

const CONTENT_TYPES_CLEAN = ['application/json', 'application/json; charset=utf-8'];
const CONTENT_TYPES_HOSTILE = [
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/json, text/plain',
  '',
  ';',
  '*/*',
  'application/',
  'application/json; boundary="',
];

/** How a body's length is told: right, in chunks, or wrongly. */
const framing: fc.Arbitrary<{
  framing: RawRequest['framing'];
  headers: ReadonlyArray<readonly [string, string]>;
  clean: boolean;
}> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ framing: 'content-length' as const, headers: [], clean: true }) },
  { weight: 2, arbitrary: fc.constant({ framing: 'chunked' as const, headers: [], clean: true }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<Array<readonly [string, string]>>(
        [['Content-Length', '1']],
        [
          ['Content-Length', '1'],
          ['Content-Length', '2'],
        ],
        [
          ['Content-Length', '2'],
          ['Transfer-Encoding', 'chunked'],
        ],
        [['Content-Length', '-1']],
        [['Content-Length', 'abc']],
        [['Content-Length', '99999999999999999999']],
        [['Content-Length', '0']],
        [['Transfer-Encoding', 'gzip']],
        [],
      )
      .map((headers) => ({ framing: 'as-given' as const, headers, clean: false })),
  },
);

// ---------------------------------------------------------------- cases per endpoint

/** `POST /api/v1/links`. */
export function createCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({
        headers: headersFor(auth),
        body: createBody(world),
        contentType: fc.oneof(
          { weight: 10, arbitrary: fc.constantFrom(...CONTENT_TYPES_CLEAN).map((v) => ({ v, clean: true })) },
          { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES_HOSTILE).map((v) => ({ v, clean: false })) },
          { weight: 1, arbitrary: fc.constant({ v: undefined, clean: false }) },
        ),
        framing,
        query: anyQuery,
      })
      .map(({ headers, body, contentType, framing: f, query }) => ({
        endpoint: 'create' as const,
        request: {
          method: 'POST',
          target: `/api/v1/links${query}`,
          headers: [
            ...headers.headers,
            ...(contentType.v === undefined ? [] : [['Content-Type', contentType.v] as const]),
            ...f.headers,
          ],
          body: body.body,
          framing: f.framing,
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && body.clean && contentType.clean && f.clean && query === '',
      })),
  );
}

const contentTypeCase = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...CONTENT_TYPES_CLEAN).map((v) => ({ v, clean: true })) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES_HOSTILE).map((v) => ({ v, clean: false })) },
  { weight: 1, arbitrary: fc.constant({ v: undefined as string | undefined, clean: false }) },
);

/** `POST /api/v1/links/bulk`. */
export function bulkCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({ headers: headersFor(auth), body: bulkBody(world), contentType: contentTypeCase, query: anyQuery })
      .map(({ headers, body, contentType, query }) => ({
        endpoint: 'bulk' as const,
        request: {
          method: 'POST',
          target: `/api/v1/links/bulk${query}`,
          headers: [
            ...headers.headers,
            ...(contentType.v === undefined ? [] : [['Content-Type', contentType.v] as const]),
          ],
          body: body.body,
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && body.clean && contentType.clean && query === '',
      })),
  );
}

/** `PATCH /api/v1/links/:slug`. */
export function updateCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({
        headers: headersFor(auth),
        path: slugSegment(world),
        body: updateBody(world),
        contentType: contentTypeCase,
        query: anyQuery,
      })
      .map(({ headers, path, body, contentType, query }) => ({
        endpoint: 'update' as const,
        request: {
          method: 'PATCH',
          target: `/api/v1/links/${path.segment}${query}`,
          headers: [
            ...headers.headers,
            ...(contentType.v === undefined ? [] : [['Content-Type', contentType.v] as const]),
          ],
          body: body.body,
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && path.clean && body.clean && contentType.clean && query === '',
        slug: path.slug,
      })),
  );
}

/** `DELETE /api/v1/links/:slug`: seldom, so that reads and redirects still meet live links. */
export function deleteCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({ headers: headersFor(auth), path: slugSegment(world), query: anyQuery })
      .map(({ headers, path, query }) => ({
        endpoint: 'delete' as const,
        request: { method: 'DELETE', target: `/api/v1/links/${path.segment}${query}`, headers: headers.headers },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && path.clean && !namesDomain(query),
        slug: path.slug,
      })),
  );
}

/** `GET /api/v1/links/:slug`. */
export function readCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({ headers: headersFor(auth), path: slugSegment(world), query: anyQuery, trailingSlash: fc.boolean() })
      .map(({ headers, path, query, trailingSlash }) => ({
        endpoint: 'read' as const,
        request: {
          method: 'GET',
          target: `/api/v1/links/${path.segment}${trailingSlash ? '/' : ''}${query}`,
          headers: headers.headers,
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && path.clean && !namesDomain(query),
        slug: path.slug,
      })),
  );
}

/** The list's parameters, plain or hostile, with anything else a query may hold. */
const listQuery = fc.oneof(
  { weight: 2, arbitrary: anyQuery },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.constantFrom('limit=1', 'limit=100', 'limit=0', 'limit=101', 'limit=-1', 'limit=1e1', 'limit=%00'),
          fc.constantFrom('cursor=', 'cursor=AQ', 'cursor=AQAAAAAAAAAAAAAAAAAAAAA', 'cursor=%FF', 'cursor=a%00'),
          headerText(24).map((v) => `tag=${encodeURIComponent(v)}`),
          headerText(24).map((v) => `search=${encodeURIComponent(v)}`),
          fc.constantFrom('search=%25', 'search=_', 'search=%5C', 'search=%ED%A0%80', 'tag=%00', 'search=a&search=b'),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((parts) => `?${parts.join('&')}`),
  },
);

/** `GET /api/v1/links`: the caller's links, never another account's. */
export function listCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({ headers: headersFor(auth), query: listQuery, method: fc.constantFrom('GET', 'GET', 'HEAD') })
      .map(({ headers, query, method }) => ({
        endpoint: 'list' as const,
        request: { method, target: `/api/v1/links${query}`, headers: headers.headers },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: false,
      })),
  );
}

/** `GET /api/v1/links/:slug/analytics?range=…`. */
export function analyticsCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({ headers: headersFor(auth), path: slugSegment(world), query: analyticsQuery })
      .map(({ headers, path, query }) => ({
        endpoint: 'analytics' as const,
        request: {
          method: 'GET',
          target: `/api/v1/links/${path.segment}/analytics${query.query}`,
          headers: headers.headers,
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && path.clean && query.clean,
        slug: path.slug,
        range: query.range,
      })),
  );
}

/** `GET` and `HEAD /:slug`, with the headers clicks are made of. */
export function redirectCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({
        headers: headersFor(auth),
        path: slugSegment(world),
        query: anyQuery,
        method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
      })
      .map(({ headers, path, query, method }) => ({
        endpoint: 'redirect' as const,
        request: { method, target: `/${path.segment}${query}`, headers: headers.headers },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: headers.clean && path.clean,
        slug: path.slug,
      })),
  );
}

/** Any method on any path the service has, or none: encoded slashes, dot segments, absolute forms. */
export function anyCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  const prefix = fc.constantFrom('/', '/api/', '/api/v1/', '/api/v1/links/', '/healthz/', '/metrics/', '//', '/./');
  const target = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(prefix, hostileSegment, anyQuery).map(([p, s, q]) => `${p}${s}${q}`) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(slugSegment(world), hostileSegment, fc.constantFrom('/analytics', '/analytics/x', '/', '', '/..'))
        .map(([slug, other, tail]) => `/api/v1/links/${slug.segment}/${other}${tail}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '*',
        'http://evil.example/healthz',
        'https://127.0.0.1/api/v1/links',
        '127.0.0.1:443',
        '/api/v1/links/../../healthz',
        '/api/v1/links/%2e%2e/%2e%2e/healthz',
        '/api/v2/links',
        '/API/V1/LINKS',
        '/api/v1/links?url=https://example.com',
        '/%2Fapi%2Fv1%2Flinks',
        '/healthz?',
        '/healthz#x',
      ),
    },
  );
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...METHODS) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_METHODS) },
  );
  return authorization(world).chain((auth) =>
    fc
      .record({
        headers: headersFor(auth),
        target,
        method,
        body: fc.option(createBody(world), { freq: 3, nil: undefined }),
      })
      .map(({ headers, target: t, method: m, body }) => ({
        endpoint: 'any' as const,
        request: {
          method: m,
          target: t,
          headers:
            body === undefined ? headers.headers : [...headers.headers, ['Content-Type', 'application/json'] as const],
          body: body?.body,
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: false,
      })),
  );
}

/** `GET /healthz` with hostile headers and queries: a probe must not be knocked over by them. */
export function healthCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc.record({ headers: headersFor(auth), query: anyQuery }).map(({ headers, query }) => ({
      endpoint: 'health' as const,
      request: { method: 'GET', target: `/healthz${query}`, headers: headers.headers },
      account: auth.account,
      authenticates: auth.authenticates,
      clean: headers.clean,
    })),
  );
}

// ---------------------------------------------------------------- webhooks

/** Webhook URLs the rules refuse, one of each kind: plain http, loopback, private, metadata, credentials, this service… */
export const REFUSED_WEBHOOK_URLS = [
  'http://hooks.example.com/in',
  'https://127.0.0.1/',
  'https://2130706433/',
  'https://0x7f.1/',
  'https://[::1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:7f00:1]/',
  'https://169.254.169.254/latest/meta-data',
  'https://[fd00:ec2::254]/',
  'https://10.0.0.1/',
  'https://192.168.1.1/',
  'https://100.64.0.1/',
  'https://0.0.0.0/',
  'https://localhost/',
  'https://a.b.localhost/',
  'https://user:pw@hooks.example.com/',
  'https://hooks.example.com/#fragment',
  'https://sho.rt/webhook',
  'ftp://hooks.example.com/',
];

/** Webhook URLs: public https ones, and every kind the rules refuse (no DNS is asked: literals and names only). */
const ACCEPTED_WEBHOOK_URLS = ['https://hooks.example.com/in', 'https://example.org:8443/a?b=c'];
const webhookUrl: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ACCEPTED_WEBHOOK_URLS) },
  {
    weight: 6,
    arbitrary: fc.constantFrom(...REFUSED_WEBHOOK_URLS),
  },
  { weight: 3, arbitrary: hostileUrl },
);

const WEBHOOK_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'];
const webhookEvents: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.subarray(WEBHOOK_EVENTS, { minLength: 1 }).map((e) => JSON.stringify(e)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '[]',
      '["link.exploded"]',
      '["link.created","link.created"]',
      '"link.created"',
      'null',
      '[1]',
      '["webhook.test"]',
    ),
  },
  { weight: 1, arbitrary: fc.array(hostileText(20), { maxLength: 5 }).map((e) => JSON.stringify(e)) },
);

/** A webhook body: create's `{url, events, description}`, a change's, or a replay's `{since, until, events}`. */
const webhookBody: fc.Arbitrary<string> = fc.oneof(
  // A create (or change) whose only fault, if any, is its URL: webhooks are made, and each refused kind meets the rule.
  {
    weight: 3,
    arbitrary: fc
      .tuple(webhookUrl, fc.subarray(WEBHOOK_EVENTS, { minLength: 1 }))
      .map(([url, events]) => JSON.stringify({ url, events })),
  },
  fc
    .record(
      {
        url: field(webhookUrl),
        events: webhookEvents,
        description: fc.oneof(field(hostileText(40)), field(hugeText(201, 3000))),
        enabled: fc.constantFrom('true', 'false', '"yes"', 'null'),
        since: field(fc.constantFrom('2026-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'yesterday', '')),
        until: field(fc.constantFrom('2026-01-02T00:00:00Z', '2025-01-01T00:00:00Z', '1e99')),
        extra: fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...known }) => objectText([...Object.entries(known), ...(extra ?? [])])),
  fc.constantFrom('', '[]', 'null', '"x"', '{', '{"url":"https://hooks.example.com/in","events":["link.created"],}'),
  deeplyNested,
);

/** A webhook id: one of either account's, an unknown one, or no id at all. */
const webhookId = (world: HostileWorld): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...ACCOUNTS), fc.nat()).map(([who, i]) => {
        const ids = world.webhooks[who];
        return ids.length > 0 ? (ids[i % ids.length] as string) : '00000000-0000-4000-8000-000000000000';
      }),
    },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: hostileSegment },
  );

/** Every webhook route, with hostile bodies, URLs and ids, of either account or none. */
export function webhookCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  const routes = [
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['POST', '/rotate-secret'],
    ['POST', '/test'],
    ['GET', '/deliveries'],
    ['POST', '/replay'],
    ['PUT', ''],
  ] as const;
  return fc.oneof(
    {
      weight: 9,
      arbitrary: hostileResourceCase(world, 'webhook', '/api/v1/webhooks', webhookId(world), routes, webhookBody),
    },
    // About one case in ten sent right, so that even a short run makes webhooks for the hostile cases to reach (a 201
    // from the hostile mix alone needs a valid key, headers, type, body and URL at once).
    {
      weight: 1,
      arbitrary: plainCreateCase(
        world,
        'webhook',
        '/api/v1/webhooks',
        fc
          .tuple(fc.constantFrom(...ACCEPTED_WEBHOOK_URLS), fc.subarray(WEBHOOK_EVENTS, { minLength: 1 }))
          .map(([url, events]) => ({ url, events })),
      ),
    },
  );
}

/** A create of a resource sent right by either account, with a body of `bodies`. */
const plainCreateCase = (
  world: HostileWorld,
  endpoint: Endpoint,
  target: string,
  bodies: fc.Arbitrary<object>,
): fc.Arbitrary<HostileCase> =>
  fc.tuple(fc.constantFrom(...ACCOUNTS), bodies).map(([account, body]) => ({
    endpoint,
    request: {
      method: 'POST',
      target,
      headers: [
        ['Host', '127.0.0.1'],
        ['Authorization', `Bearer ${world.keys[account]}`],
        ['Content-Type', 'application/json'],
      ],
      body: JSON.stringify(body),
    },
    account,
    authenticates: true,
    clean: false,
  }));

/**
 * A hostile request to a resource's routes, under `base`: its collection (`POST`, `GET`, `HEAD`), or one member
 * named by `member` with one of `memberRoutes` (a method and a path after the member), with hostile headers, key,
 * content type, query and body.
 */
function hostileResourceCase(
  world: HostileWorld,
  endpoint: Endpoint,
  base: string,
  member: fc.Arbitrary<string>,
  memberRoutes: ReadonlyArray<readonly [string, string]>,
  body: fc.Arbitrary<string>,
): fc.Arbitrary<HostileCase> {
  return authorization(world).chain((auth) =>
    fc
      .record({
        headers: headersFor(auth),
        route: fc.oneof(
          { weight: 4, arbitrary: fc.constant({ method: 'POST', path: '' }) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'HEAD').map((method) => ({ method, path: '' })) },
          {
            weight: 5,
            arbitrary: fc
              .tuple(member, fc.constantFrom(...memberRoutes))
              .map(([name, [method, suffix]]) => ({ method, path: `/${name}${suffix}` })),
          },
        ),
        body,
        contentType: contentTypeCase,
        query: anyQuery,
      })
      .map(({ headers, route, body, contentType, query }) => ({
        endpoint,
        request: {
          method: route.method,
          target: `${base}${route.path}${query}`,
          headers: [
            ...headers.headers,
            ...(contentType.v === undefined ? [] : [['Content-Type', contentType.v] as const]),
          ],
          ...(route.method === 'POST' || route.method === 'PATCH' ? { body } : {}),
        },
        account: auth.account,
        authenticates: auth.authenticates,
        clean: false,
      })),
  );
}

// ---------------------------------------------------------------- branded domains

/** A domain body: an add's `{hostname}`, a change's redirects, or anything at all. */
const domainBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: domainHostname.map((hostname) => JSON.stringify({ hostname })) },
  fc
    .record(
      {
        hostname: field(domainHostname),
        rootRedirect: fc.oneof(field(cleanUrl), field(hostileUrl)),
        notFoundRedirect: fc.oneof(field(cleanUrl), field(hostileUrl)),
        extra: fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...known }) => objectText([...Object.entries(known), ...(extra ?? [])])),
  fc.constantFrom('', '[]', 'null', '"x"', '{', '{"hostname":"brand-1.example.com",}'),
  deeplyNested,
);

/** A domain in a path: one of either account's, a hostile spelling of a hostname, or a hostile segment. */
const domainSegment = (world: HostileWorld): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...ACCOUNTS), fc.nat()).map(([who, i]) => {
        const names = world.domains[who];
        return names.length > 0 ? (names[i % names.length] as string) : 'brand-0.example.com';
      }),
    },
    { weight: 2, arbitrary: domainHostname.map((h) => encodeURIComponent(h.replace(/[\ud800-\udfff]/g, 'x'))) },
    { weight: 1, arbitrary: hostileSegment },
  );

/** Every domain route, with hostile hostnames, bodies and paths, of either account or none. */
export function domainCase(world: HostileWorld): fc.Arbitrary<HostileCase> {
  const routes = [
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['POST', '/verify'],
    ['PUT', ''],
  ] as const;
  return fc.oneof(
    {
      weight: 9,
      arbitrary: hostileResourceCase(world, 'domain', '/api/v1/domains', domainSegment(world), routes, domainBody),
    },
    // An add sent right by either account, so that the hostile cases meet existing domains.
    {
      weight: 1,
      arbitrary: plainCreateCase(
        world,
        'domain',
        '/api/v1/domains',
        fc.nat(40).map((n) => ({ hostname: `brand-${n}.example.com` })),
      ),
    },
  );
}
