/** A count with its noun, singular for one: "1 session", "3 sessions". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
