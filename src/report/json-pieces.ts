/** Array elements stringified at once: a few KB of a session record, well under a millisecond. */
const ARRAY_BLOCK = 64;

/**
 * `JSON.stringify(value)` of plain data (no `toJSON` taking its key, no boxed
 * primitives) as a sequence of pieces, each a bounded amount of work, so a large
 * value can be serialized a little at a time: objects are walked key by key, arrays
 * cut into blocks of elements, anything else is stringified whole.
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (!isWalkable(value)) {
    yield JSON.stringify(value);
  } else if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i += ARRAY_BLOCK) yield (i > 0 ? ',' : '') + JSON.stringify(value.slice(i, i + ARRAY_BLOCK)).slice(1, -1);
    yield ']';
  } else {
    let separator = '{';
    for (const [key, item] of Object.entries(value)) {
      const name = `${separator}${JSON.stringify(key)}:`;
      if (isWalkable(item)) {
        yield name;
        yield* jsonPieces(item);
      } else {
        const text = JSON.stringify(item) as string | undefined; // undefined, functions and symbols are left out
        if (text === undefined) continue;
        yield name + text;
      }
      separator = ',';
    }
    yield separator === '{' ? '{}' : '}';
  }
}

function isWalkable(value: unknown): value is object {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
