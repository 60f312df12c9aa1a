import { summariseEntryPointLog } from './entry-point-log';

describe("the entry point's log of abnormal requests", () => {
  it('counts each answer by its status, the instance that gave it and why it ended', () => {
    const log = [
      '127.0.0.1:55030 [06/Dec/2026:15:57:57.941] entry redirectors/redirector-1 0/0/0/2004/2004 503 217 - - ---- 8/8/3/1/0 0/0 "GET /abc HTTP/1.1"',
      '127.0.0.1:55031 [06/Dec/2026:15:57:58.001] entry redirectors/redirector-1 0/0/0/2010/2010 503 217 - - ---- 8/8/3/1/0 0/0 "GET /abd HTTP/1.1"',
      '127.0.0.1:55032 [06/Dec/2026:15:57:58.100] entry redirectors/<NOSRV> 0/-1/-1/-1/3005 503 217 - - SC-- 1/1/0/0/3 0/0 "GET /x HTTP/1.1"',
      '127.0.0.1:55033 [06/Dec/2026:15:57:59.100] entry write_api/write-api-2 0/0/0/-1/10001 504 194 - - sH-- 1/1/0/0/0 0/0 "POST /api/v1/links HTTP/1.1"',
      '[WARNING]  (12) : Server redirectors/redirector-2 is DOWN, reason: Layer4 connection problem.',
      '',
    ].join('\n');
    expect(summariseEntryPointLog(log)).toEqual({
      byCause: [
        { cause: '503 redirectors/redirector-1 ----', count: 2 },
        { cause: '503 redirectors/<NOSRV> SC--', count: 1 },
        { cause: '504 write_api/write-api-2 sH--', count: 1 },
      ],
      otherLines: 1,
    });
  });
});
