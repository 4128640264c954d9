/**
 * The V8 heap settings the `voxbench` command runs with, in its shebang line (main.ts).
 * A benchmark client and a metering proxy keep every open session's timeline, so their
 * old generation grows steadily; with V8's defaults that starts a full collection about
 * every second, pausing the thread 5-10 ms while chunks fall due and frames wait to be
 * stamped or forwarded. A larger initial old generation leaves full collections to when
 * 256 MiB have built up, and larger semi-spaces make scavenges rarer (BENCHMARKS.md,
 * the proxy section, measures both). Neither raises the most the heap may take.
 */
export const NODE_FLAGS = ['--max-semi-space-size=32', '--initial-old-space-size=256'] as const;
