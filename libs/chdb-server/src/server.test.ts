import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { startChdbHttpServer, type ChdbHttpServer } from './server';

describe('chdb HTTP endpoint', () => {
  let dataPath: string;
  let handle: ChdbHttpServer;
  let base: string;
  let client: ClickHouseClient;

  beforeAll(async () => {
    dataPath = await mkdtemp(join(tmpdir(), 'chdb-server-test-'));
    handle = await startChdbHttpServer({ dataPath, host: '127.0.0.1', port: 0 });
    const address = handle.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
    client = createClient({ url: base, compression: { request: true, response: true } });
  });

  afterAll(async () => {
    await client.close();
    await handle.close();
    await rm(dataPath, { recursive: true, force: true });
  });

  async function sql(query: string, params = ''): Promise<{ status: number; body: string; headers: Headers }> {
    const res = await fetch(`${base}/?${params}`, { method: 'POST', body: query });
    return { status: res.status, body: await res.text(), headers: res.headers };
  }

  it('answers ping', async () => {
    expect(await (await fetch(`${base}/ping`)).text()).toBe('Ok.\n');
    expect(await client.ping()).toEqual({ success: true });
  });

  it('applies settings to one request only', async () => {
    const set = await sql("SELECT getSetting('max_threads')", 'max_threads=3');
    expect(set.body.trim()).toBe('3');
    const after = await sql("SELECT getSetting('max_threads') = 3");
    expect(after.body.trim()).toBe('0');
  });

  it('keeps a SET or USE sent as a query to that request, as a server does', async () => {
    const before = (await sql("SELECT getSetting('max_threads')")).body.trim();
    expect((await sql('SET max_threads = 1, max_block_size = 777')).status).toBe(200);
    expect((await sql("SELECT getSetting('max_threads')")).body.trim()).toBe(before);
    expect((await sql("SELECT getSetting('max_block_size') = 777")).body.trim()).toBe('0');
    expect((await sql('USE system')).status).toBe(200);
    expect((await sql('SELECT currentDatabase()')).body.trim()).toBe('default');
  });

  it('changes settings between requests only where they differ, and resets the ones dropped', async () => {
    const both = 'max_result_rows=5&max_block_size=1234';
    expect((await sql("SELECT getSetting('max_result_rows')", both)).body.trim()).toBe('5');
    expect((await sql("SELECT getSetting('max_block_size')", both)).body.trim()).toBe('1234');
    expect((await sql("SELECT getSetting('max_block_size') = 1234", 'max_result_rows=5')).body.trim()).toBe('0');
    expect((await sql("SELECT getSetting('max_result_rows')")).body.trim()).toBe('0');
  });

  it('scopes the database parameter to one request', async () => {
    expect((await sql('SELECT currentDatabase()', 'database=system')).body.trim()).toBe('system');
    expect((await sql('SELECT currentDatabase()')).body.trim()).toBe('default');
  });

  it('takes insert data after a query URL parameter, gzip-compressed too', async () => {
    await client.command({
      query: 'CREATE TABLE IF NOT EXISTS t (id UInt32, s String) ENGINE = MergeTree ORDER BY id',
    });
    await client.insert({ table: 't', values: [{ id: 1, s: 'a\tb' }], format: 'JSONEachRow' });
    const res = await fetch(`${base}/?query=${encodeURIComponent('INSERT INTO t FORMAT JSONEachRow')}`, {
      method: 'POST',
      headers: { 'Content-Encoding': 'gzip' },
      body: gzipSync('{"id":2,"s":"c"}\n'),
    });
    expect(res.status).toBe(200);
    const rows = await (await client.query({ query: 'SELECT id, s FROM t ORDER BY id', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([
      { id: 1, s: 'a\tb' },
      { id: 2, s: 'c' },
    ]);
  });

  it('binds query parameters as a real server reads them', async () => {
    const result = await client.query({
      query: 'SELECT {s:String} AS s, {n:UInt8} AS n, {a:Array(String)} AS a',
      query_params: { s: "it's\t\\fine", n: 7, a: ['x', 'y z'] },
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([{ s: "it's\t\\fine", n: 7, a: ['x', 'y z'] }]);
  });

  it('answers engine errors with a ClickHouse status, code header and text', async () => {
    const missing = await sql('SELECT * FROM no_such_table');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(missing.body).toMatch(/^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\)/);

    const syntax = await sql('SELEC 1');
    expect(syntax.status).toBe(400);
    expect(syntax.body).toMatch(/^Code: 62\./);

    const empty = await sql('');
    expect(empty.status).toBe(400);
    expect(empty.body).toMatch(/Empty query/);

    const badSetting = await sql('SELECT 1', 'no_such_setting_x=1');
    expect(badSetting.status).toBe(400);
    expect(badSetting.body).toMatch(/UNKNOWN_SETTING/);
    // A failed request leaves nothing behind for the next one.
    expect((await sql('SELECT 1')).body).toBe('1\n');
  });

  it('streams a SELECT that ends in a FORMAT clause: one header, every row, parameters and settings applied', async () => {
    // Larger than one engine chunk (about 65,000 rows), so the endpoint joins several.
    const rows = 200_000;
    const csv = await sql(
      `SELECT number AS n, getSetting('max_threads') AS t FROM numbers({rows:UInt64}) FORMAT CSVWithNames`,
      `param_rows=${rows}&max_threads=3`,
    );
    expect(csv.status).toBe(200);
    const lines = csv.body.trimEnd().split('\n');
    expect(lines[0]).toBe('"n","t"');
    expect(lines.filter((l) => l.startsWith('"n"'))).toHaveLength(1);
    expect(lines).toHaveLength(rows + 1);
    expect(lines[rows]).toBe(`${rows - 1},3`);

    const ndjson = await sql('SELECT number AS n FROM numbers(150000) FORMAT JSONEachRow');
    const parsed = ndjson.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { n: number });
    expect(parsed.map((r) => r.n)).toEqual([...Array(150_000).keys()]);

    const parquet = await fetch(`${base}/`, {
      method: 'POST',
      body: 'SELECT number AS n FROM numbers(300000) FORMAT Parquet',
    });
    const file = Buffer.from(await parquet.arrayBuffer());
    expect(parquet.status).toBe(200);
    // One file: its magic at both ends and nowhere else at a chunk's start.
    expect([file.subarray(0, 4).toString(), file.subarray(-4).toString()]).toEqual(['PAR1', 'PAR1']);
    expect(file.indexOf('PAR1', 4)).toBe(file.length - 4);

    // A query that fails before writing anything is an error answer, not a 200.
    const failed = await sql("SELECT throwIf(number = 0, 'no rows today') FROM numbers(1) FORMAT Parquet");
    expect(failed.status).toBe(500);
    expect(failed.body).toMatch(/no rows today/);
    const csvFailed = await sql("SELECT throwIf(number = 0, 'nor today') FROM numbers(1) FORMAT CSVWithNames");
    expect(csvFailed.body).toMatch(/nor today/);
  });

  it('sends a streamed result as it comes, ends it when its client goes away, and answers the next', async () => {
    const abort = new AbortController();
    // Ten billion rows: far more than could be held, so a first byte within the test's time means streaming.
    const res = await fetch(`${base}/`, {
      method: 'POST',
      body: 'SELECT number AS n FROM numbers(10000000000) FORMAT JSONEachRow',
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    const started = Date.now();
    expect((await sql('SELECT 1')).body).toBe('1\n');
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);

  it('runs concurrent requests one at a time without mixing their settings', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(async (n) =>
        (await sql("SELECT getSetting('max_threads')", `max_threads=${n}`)).body.trim(),
      ),
    );
    expect(answers).toEqual(['1', '2', '3', '4', '5', '6']);
  });
});

describe('chdb HTTP endpoint with a password', () => {
  let dataPath: string;
  let handle: ChdbHttpServer;
  let base: string;
  const password = 'a-secret-of-this-process';

  beforeAll(async () => {
    dataPath = await mkdtemp(join(tmpdir(), 'chdb-server-auth-'));
    handle = await startChdbHttpServer({ dataPath, host: '127.0.0.1', port: 0, password });
    const address = handle.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    await handle.close();
    await rm(dataPath, { recursive: true, force: true });
  });

  const post = (query: string, headers: Record<string, string> = {}, params = '') =>
    fetch(`${base}/?${params}`, { method: 'POST', body: query, headers });

  it('runs nothing for a request without the password, or with another', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-clickhouse-key': 'wrong' },
      { authorization: 'Basic ZGVmYXVsdDp3cm9uZw==' },
    ];
    for (const headers of attempts) {
      const res = await post("SELECT * FROM file('/etc/hostname', 'LineAsString')", headers);
      expect([res.status, (await res.text()).trim()]).toEqual([
        401,
        'Code: 516. DB::Exception: default: Authentication failed: password is incorrect. (AUTHENTICATION_FAILED)',
      ]);
    }
    expect(await (await fetch(`${base}/ping`)).text()).toBe('Ok.\n');
  });

  it('answers the ClickHouse client that sends it, however it is sent', async () => {
    const client = createClient({ url: base, username: 'default', password });
    try {
      const rows = await (await client.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json();
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await client.close();
    }
    expect((await (await post('SELECT 2', { 'x-clickhouse-key': password })).text()).trim()).toBe('2');
    expect((await (await post('SELECT 3', {}, `password=${password}`)).text()).trim()).toBe('3');
  });

  it('changes nothing through a GET, as a server does', async () => {
    const create = await post('CREATE TABLE t (n UInt8) ENGINE = Memory', { 'x-clickhouse-key': password });
    expect(create.status).toBe(200);
    const insert = await fetch(`${base}/?password=${password}&query=${encodeURIComponent('INSERT INTO t VALUES (1)')}`);
    expect(insert.status).not.toBe(200);
    expect(await insert.text()).toMatch(/readonly/i);
    expect((await (await post('SELECT count() FROM t', { 'x-clickhouse-key': password })).text()).trim()).toBe('0');
  });
});
