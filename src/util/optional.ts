/** `{ [key]: value }` when there is a value, else nothing: for spreading an optional field into an object. */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
