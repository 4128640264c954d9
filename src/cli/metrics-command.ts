import { Command } from '@commander-js/extra-typings';
import { describeMetrics } from '../metrics/catalog.js';
import { spanText } from '../report/picks.js';

export const metricsCommand = new Command('metrics').description('List every metric with its unit, start and end events, and meaning.').action(() => {
  for (const m of describeMetrics()) {
    const per = { session: 'session', input: 'turn', input_samples: 'turn', response: 'response', corpus: 'corpus' }[m.scope];
    process.stdout.write(`${m.name} [${m.unit}, per ${per}]\n  ${spanText(m)}\n  ${m.description} Tasks: ${m.tasks.join(', ')}.\n`);
  }
});
