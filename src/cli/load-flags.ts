import { UsageError } from '../util/errors.js';
import type { PROFILE_KINDS } from '../load/profiles.js';

export type ProfileFlag = (typeof PROFILE_KINDS)[number] | 'sweep' | 'capacity';
type LoadFlag = 'concurrency' | 'rate' | 'maxOpen' | 'seed' | 'stages' | 'rateStages';

/** What a load flag means, for the line that refuses it where it does not apply. */
const MEANING: Record<LoadFlag, { flag: string; appliesTo: string }> = {
  concurrency: { flag: '--concurrency', appliesTo: 'sessions open at once, for --profile concurrent, sweep or capacity' },
  rate: {
    flag: '--rate',
    appliesTo: 'arrivals per second, for --profile constant, poisson or capacity --capacity-by rate; sessions open at once are --concurrency',
  },
  maxOpen: { flag: '--max-open', appliesTo: 'a cap on open sessions, for --profile constant, poisson, rate-stages or capacity --capacity-by rate' },
  seed: { flag: '--seed', appliesTo: 'the seed of Poisson arrivals, for --profile poisson, rate-stages or capacity --capacity-by rate' },
  stages: { flag: '--stages', appliesTo: 'sessions open at once ramped through stages, for --profile stages' },
  rateStages: { flag: '--rate-stages', appliesTo: 'an arrival rate ramped through stages, for --profile rate-stages' },
};

/**
 * The profile a run's load flags ask for. Without --profile it is inferred from the
 * load flags given (--concurrency 4 is concurrent, 1,2,4 a sweep, --rate open-loop
 * arrivals, --stages or --rate-stages ramps), so a level is never silently dropped for the synchronous default; a
 * load flag the profile would ignore is refused rather than ignored.
 */
export function profileOfFlags(
  profile: ProfileFlag | undefined,
  given: ReadonlySet<LoadFlag>,
  levels: number,
  capacityBy: 'concurrency' | 'rate',
): ProfileFlag {
  const kind = profile ?? inferred(given, levels);
  const byRate = kind === 'capacity' && capacityBy === 'rate';
  const applies: Record<LoadFlag, boolean> = {
    concurrency: kind === 'concurrent' || kind === 'sweep' || (kind === 'capacity' && capacityBy === 'concurrency'),
    rate: kind === 'constant' || kind === 'poisson' || byRate,
    maxOpen: kind === 'constant' || kind === 'poisson' || kind === 'rate-stages' || byRate,
    seed: kind === 'poisson' || kind === 'rate-stages' || byRate,
    stages: kind === 'stages',
    rateStages: kind === 'rate-stages',
  };
  for (const flag of given) {
    if (applies[flag]) continue;
    const { flag: name, appliesTo } = MEANING[flag];
    const running = profile === undefined ? 'without --profile' : `with --profile ${kind}${kind === 'capacity' ? ` --capacity-by ${capacityBy}` : ''}`;
    throw new UsageError(`${name} does not apply ${running}: it is ${appliesTo}`);
  }
  return kind;
}

function inferred(given: ReadonlySet<LoadFlag>, levels: number): ProfileFlag {
  if (given.has('stages') && given.has('rateStages')) {
    throw new UsageError('--stages and --rate-stages ramp different things (sessions open at once, arrivals per second): give one');
  }
  if (given.has('stages')) return 'stages';
  if (given.has('rateStages')) return 'rate-stages';
  if (given.has('concurrency') && given.has('rate')) {
    throw new UsageError(
      '--concurrency and --rate without --profile: give --profile concurrent (sessions open at once) or constant/poisson (arrivals per second)',
    );
  }
  if (given.has('concurrency')) return levels > 1 ? 'sweep' : 'concurrent';
  if (given.has('rate')) return given.has('seed') ? 'poisson' : 'constant';
  return 'synchronous';
}
