import { UsageError } from '../run.js';
import type { ServerOptions } from '../server/server.js';

/** Parses `--fault` values: `never-finalize`, `close=CODE`, `upgrade-status=CODE`. */
export function parseFaults(values: readonly string[]): ServerOptions['faults'] {
  const faults: ServerOptions['faults'] = { neverFinalize: false };
  for (const value of values) {
    const [name, arg] = value.split('=', 2);
    const code = Number(arg);
    if (name === 'never-finalize' && arg === undefined) faults.neverFinalize = true;
    else if (name === 'close' && Number.isInteger(code) && code >= 1000 && code <= 4999) faults.closeCode = code;
    else if (name === 'upgrade-status' && Number.isInteger(code) && code >= 300 && code <= 599) faults.upgradeStatus = code;
    else throw new UsageError(`--fault ${value} is not a fault; use never-finalize, close=CODE (1000-4999) or upgrade-status=CODE (300-599)`);
  }
  return faults;
}
