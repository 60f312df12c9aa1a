/**
 * The entry point's log (HAProxy's `option httplog` with `dontlog-normal`: only the abnormal requests) summed up:
 * for each answer that was a 5xx or did not end normally, who answered it (`backend/server`, `<NOSRV>` when no
 * instance was reached) and HAProxy's termination state, whose first two letters say which side ended the request
 * and in what phase (`sH`: the server's headers timed out; `SC`: the server refused the connection; `sQ`: it waited
 * in the queue too long). That is where a 5xx in a chaos report came from (docs/reliability.md).
 */
export interface AbnormalAnswers {
  /** `<status> <backend>/<server> <termination state>` → how many, most first. */
  byCause: { cause: string; count: number }[];
  /** Lines of the log that are no request (HAProxy's own notices), left out of the count. */
  otherLines: number;
}

// client:port [date] frontend backend/server Tq/Tw/Tc/Tr/Ta status bytes - - TERM ...
const REQUEST_LINE =
  /^\S+ \[[^\]]+\] \S+ (\S+\/\S+) [-\d]+\/[-\d]+\/[-\d]+\/[-\d]+\/\+?[-\d]+ (-?\d+) \S+ \S+ \S+ (\S{4}) /;

export function summariseEntryPointLog(text: string): AbnormalAnswers {
  const counts = new Map<string, number>();
  let otherLines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const m = REQUEST_LINE.exec(line);
    if (!m) {
      otherLines++;
      continue;
    }
    const cause = `${m[2]} ${m[1]} ${m[3]}`;
    counts.set(cause, (counts.get(cause) ?? 0) + 1);
  }
  const byCause = [...counts].map(([cause, count]) => ({ cause, count })).sort((a, b) => b.count - a.count);
  return { byCause, otherLines };
}
