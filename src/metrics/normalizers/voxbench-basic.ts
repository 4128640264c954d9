/** voxbench's own normalizer since its first version: its word split (util/words.ts), nothing more. */
export { splitWords as voxbenchBasic } from '../../util/words.js';
