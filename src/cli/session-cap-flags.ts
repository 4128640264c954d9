import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { DEFAULT_SESSION_CAPS, type SessionCaps } from '../session/session-caps.js';
import { positiveInt, positiveNum } from './parse.js';

const MB = 1024 * 1024;

/** `--max-session-events` and `--max-session-mb`: how much of what a server sends one session keeps and takes (session-caps.ts). */
export function addSessionCapFlags<C extends CommandUnknownOpts>(command: C): C {
  command.addOption(
    new Option(
      '--max-session-events <n>',
      'received events one session keeps in its timeline; past it they are only counted (events, audio, a SHA-256 of their text) and the session fails as answer_too_large, as its figures would rest on part of its answer',
    )
      .argParser(positiveInt)
      .default(DEFAULT_SESSION_CAPS.maxEvents),
  );
  command.addOption(
    new Option('--max-session-mb <mb>', 'most bytes one session receives, MB; past it the session ends at once as answer_too_large')
      .argParser(positiveNum)
      .default(DEFAULT_SESSION_CAPS.maxBytes / MB),
  );
  return command;
}

/** The flags of `addSessionCapFlags`, as commander parses them (with their defaults). */
export interface SessionCapFlags {
  maxSessionEvents?: number;
  maxSessionMb?: number;
}

export function sessionCapsFromFlags(flags: SessionCapFlags): SessionCaps {
  return {
    maxEvents: flags.maxSessionEvents ?? DEFAULT_SESSION_CAPS.maxEvents,
    maxBytes: Math.round((flags.maxSessionMb ?? DEFAULT_SESSION_CAPS.maxBytes / MB) * MB),
  };
}
