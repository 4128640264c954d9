import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveApiKey } from '../src/config/api-key.js';
import { UsageError } from '../src/config/settings.js';

const env = { OPENAI_API_KEY: 'openai', VOXBENCH_API_KEY: 'voxbench', MY_KEY: 'mine' };

describe('resolveApiKey', () => {
  it('takes the key given over every variable', () => {
    assert.equal(resolveApiKey({ apiKey: 'flag', apiKeyEnv: 'MY_KEY', protocol: 'openai' }, env), 'flag');
  });

  it('then the variable named, and refuses an unset one instead of running without a key', () => {
    assert.equal(resolveApiKey({ apiKeyEnv: 'MY_KEY', protocol: 'openai' }, env), 'mine');
    assert.throws(
      () => resolveApiKey({ apiKeyEnv: 'UNSET' }, env),
      (err) => err instanceof UsageError && /^apiKeyEnv UNSET: that environment variable is not set$/.test(err.message),
    );
  });

  it('then OPENAI_API_KEY for OpenAI dialects only, then VOXBENCH_API_KEY', () => {
    assert.equal(resolveApiKey({ protocol: 'openai-beta' }, env), 'openai');
    assert.equal(resolveApiKey({ protocol: 'vllm' }, env), 'voxbench');
    assert.equal(resolveApiKey({}, { OPENAI_API_KEY: 'openai' }), undefined);
    assert.equal(resolveApiKey({ protocol: 'openai' }, { OPENAI_API_KEY: '' }), undefined);
  });
});
