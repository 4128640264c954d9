/**
 * The V8 heap setting the `voxbench` command runs with, in its shebang line (main.ts).
 * A benchmark client and a metering proxy keep every open session's timeline, so their
 * old generation grows steadily; with V8's defaults that starts a full collection about
 * every second, pausing the thread 5-10 ms while chunks fall due and frames wait to be
 * stamped or forwarded. A larger initial old generation leaves full collections until
 * 256 MiB have built up; it does not raise the most the heap may take. Larger
 * semi-spaces were measured too: rarer scavenges, but each longer, which helped the
 * proxy and hurt pacing (BENCHMARKS.md, the pacing and proxy sections).
 */
export const NODE_FLAGS = ['--initial-old-space-size=256'] as const;
