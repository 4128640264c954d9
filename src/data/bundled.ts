import { fileURLToPath } from 'node:url';

/** The bundled samples folder (`samples/` at the package root). */
export const BUNDLED_SAMPLES_DIR = fileURLToPath(new URL('../../../samples', import.meta.url));
