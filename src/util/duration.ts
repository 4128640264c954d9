const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;

/**
 * A duration as every flag writes one: a number and a unit, ms, s, m or h (`250ms`,
 * `1.5s`, `2m`), a bare number being in `bare` (the flag's own unit: ms for `--x-ms`,
 * s for a flag of seconds). In ms; undefined when the text is not a duration.
 */
export function parseDuration(text: string, bare: DurationUnit): number | undefined {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[(match[2] as DurationUnit | undefined) ?? bare];
}
