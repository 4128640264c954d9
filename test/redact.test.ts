import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { redactUrl } from '../src/report/redact.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

/** Query strings of provider-signed URLs, with secrets marked SECRET so a test can look for them. */
const SIGNED = {
  // AWS SigV4 presigned (S3 and API Gateway WebSocket), with a session's security token.
  aws:
    'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIASECRETAWSID%2F20260101%2Fus-east-1%2Fexecute-api%2Faws4_request' +
    '&X-Amz-Date=20260101T000000Z&X-Amz-Expires=300&X-Amz-Security-Token=SECRETawsSessionToken' +
    '&X-Amz-SignedHeaders=host&X-Amz-Signature=SECRETaeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
  // Google Cloud Storage V4 signed URL.
  google:
    'X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=SECRETsigner%40project.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request' +
    '&X-Goog-Date=20260101T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=SECRET247a2aa45f169edf4d187d54e7cc46e4731b1e6273242c4f4c39a1d2507a0e58',
  // Google V2 signed URL.
  googleV2: 'GoogleAccessId=SECRETsigner%40project.iam.gserviceaccount.com&Expires=1767225600&Signature=SECRETvJgtA3%2BabcD%3D',
  // Azure SAS: sig is the secret; version, permissions, expiry and the like describe it.
  azure: 'sv=2022-11-02&ss=b&srt=sco&sp=rwl&se=2026-01-01T00%3A00%3A00Z&st=2025-12-31T00%3A00%3A00Z&spr=https&sig=SECRETlYx0%2Fabc%2Bdef%3D',
  // Bearer-style parameters.
  tokens: 'jwt=SECRETeyJhbGciOiJIUzI1NiJ9.e30.sig&access_token=SECRETtok&api-key=SECRETkey&password=SECRETpw&client_secret=SECRETcs',
};

describe('redactUrl', () => {
  it('replaces every credential and signing parameter of provider-signed URLs, keeping the rest', () => {
    const url = new URL(redactUrl(`wss://h.example/v1/realtime?model=m&${Object.values(SIGNED).join('&')}&x=1`));
    assert.ok(!url.href.includes('SECRET'), url.href);
    const kept = Object.fromEntries([...url.searchParams].filter(([, v]) => v !== 'REDACTED'));
    assert.deepEqual(kept, {
      model: 'm',
      Expires: '1767225600',
      sv: '2022-11-02',
      ss: 'b',
      srt: 'sco',
      sp: 'rwl',
      se: '2026-01-01T00:00:00Z',
      st: '2025-12-31T00:00:00Z',
      spr: 'https',
      x: '1',
    });
    for (const name of [
      'X-Amz-Algorithm',
      'X-Amz-Credential',
      'X-Amz-Date',
      'X-Amz-Security-Token',
      'X-Amz-Signature',
      'X-Goog-Credential',
      'X-Goog-Signature',
      'GoogleAccessId',
      'Signature',
      'sig',
      'jwt',
      'access_token',
      'api-key',
      'password',
      'client_secret',
    ]) {
      assert.equal(url.searchParams.get(name), 'REDACTED', name);
    }
  });

  it('replaces user info, a repeated parameter and a percent-encoded name', () => {
    assert.equal(redactUrl('ws://alice:s3cret@h:1/p?sig=a&sig=b&X%2DAmz%2DSignature=c'), 'ws://REDACTED:REDACTED@h:1/p?sig=REDACTED&X-Amz-Signature=REDACTED');
    assert.equal(redactUrl('ws://token-only@h/p'), 'ws://REDACTED@h/p');
  });
});

describe('credentials in the target URL reach no output of a real run', () => {
  it('report.json, report.html, summary.md, the CSVs, the session log, stdout and stderr', async () => {
    const server = await testServer();
    const out = await tempDir();
    const target = server.url.replace('ws://', 'ws://SECRETuser:SECRETpass@') + `?${Object.values(SIGNED).join('&')}`;
    for (const json of [[], ['--json']]) {
      const result = await runNode([
        CLI,
        'run',
        '--target',
        target,
        '--model',
        'mistralai/Voxtral-Mini-4B-Realtime-2602',
        '--max-sessions',
        '1',
        '--pace',
        'none',
        '--outputs',
        'json,html,csv,md',
        '--output-dir',
        out,
        // The second run replaces the first's outputs, as it is told to.
        ...(json.length > 0 ? ['--overwrite'] : []),
        ...json,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, json.length ? /"completed": 1/ : /1 completed/, 'the server took the connection');
      assert.ok(!(result.stdout + result.stderr).includes('SECRET'), result.stdout);
    }
    const names = await readdir(out);
    assert.deepEqual(names.sort(), ['levels.csv', 'report.html', 'report.json', 'sessions.csv', 'sessions.jsonl', 'starts.csv', 'summary.md', 'turns.csv']);
    for (const name of names) {
      const text = await readFile(join(out, name), 'utf8');
      assert.ok(!text.includes('SECRET'), `${name} holds a credential`);
    }
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { config: { target: string } };
    assert.match(report.config.target, /^ws:\/\/REDACTED:REDACTED@127\.0\.0\.1:\d+\/v1\/realtime\?X-Amz-Algorithm=REDACTED&/);
  });
});
