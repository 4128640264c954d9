import { createHash } from 'node:crypto';

/**
 * What the run's sessions hold of their servers' sessions while they run: ids, channels
 * and socket URLs. An app (or an orchestrator) that hands one session to two of the
 * run's would have them publish into one channel: mixed audio, a transcript of both.
 * The run's threads share one table, in shared memory: each key a 63-bit hash in an
 * open-addressed slot, claimed with a compare-and-swap, so two threads claiming one key
 * at once cannot both win. A released slot is marked spent and never reused (a reused
 * one could hide a holder further along), so a table holds the keys of about 87,000
 * sessions; past that, claims succeed unchecked.
 */
const SLOTS = 1 << 18;
const EMPTY = 0n;
const SPENT = -1n;

let table = new BigInt64Array(new SharedArrayBuffer(SLOTS * 8));

/** A fresh table, for a run's worker threads to share (`shareChannelClaims`). */
export function newChannelClaims(): SharedArrayBuffer {
  return new SharedArrayBuffer(SLOTS * 8);
}

/** This thread claims in `buffer` from now on: the run's table. */
export function shareChannelClaims(buffer: SharedArrayBuffer): void {
  table = new BigInt64Array(buffer);
}

/**
 * Claims a server session's id, channel and socket for one session of the run; what
 * another session holds already names the session as shared, and claims nothing.
 */
export function claimChannel(opened: { socketUrl: string; publishUrl: string; session?: string }): { release: () => void } | { shared: string } {
  const keys: Array<[name: string, hash: bigint]> = [
    ...(opened.session !== undefined ? [[`session ${opened.session}`, hashOf(`session:${opened.session}`)] as [string, bigint]] : []),
    [`channel ${opened.publishUrl}`, hashOf(`channel:${opened.publishUrl}`)],
    [`stream ${opened.socketUrl}`, hashOf(`socket:${opened.socketUrl}`)],
  ];
  const held: number[] = [];
  const release = (): void => held.forEach((slot) => Atomics.store(table, slot, SPENT));
  for (const [name, hash] of keys) {
    const slot = claim(hash);
    if (slot === 'held') {
      release();
      return { shared: name };
    }
    if (slot !== undefined) held.push(slot);
  }
  return { release };
}

/** Claims `hash`: its slot, `held` when another holds it, undefined when the table is full. */
function claim(hash: bigint): number | 'held' | undefined {
  const start = Number(hash % BigInt(SLOTS));
  for (let i = 0; i < SLOTS; i++) {
    const slot = (start + i) % SLOTS;
    const seen = Atomics.compareExchange(table, slot, EMPTY, hash);
    if (seen === EMPTY) return slot;
    if (seen === hash) return 'held';
  }
  return undefined;
}

/** A key as a positive, nonzero 63-bit number. */
function hashOf(key: string): bigint {
  const digest = createHash('sha256').update(key).digest();
  return (digest.readBigInt64BE(0) & 0x7fff_ffff_ffff_ffffn) | 1n;
}
