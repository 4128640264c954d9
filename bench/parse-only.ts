/**
 * The floor `bench/report-render.ts` compares rendering with: Node reading a run
 * folder's `report.json` and `sessions.jsonl` and `JSON.parse`-ing them (the log a line
 * at a time, as a log that outgrows V8's longest string must be read), and nothing else.
 *
 *   node dist/bench/parse-only.js DIR
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const dir = process.argv[2]!;
const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as object;
const sessions: unknown[] = [];
for await (const line of createInterface({ input: createReadStream(join(dir, 'sessions.jsonl')), crlfDelay: Infinity })) {
  if (line !== '') sessions.push(JSON.parse(line));
}
process.stdout.write(`parsed ${Object.keys(report).length} report keys and ${sessions.length} sessions\n`);
