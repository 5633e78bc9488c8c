/**
 * The stored profile stays under PROFILE_LIMITS.profileBytes whatever the application logs or throws.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROFILE_LIMITS } from '../../src/debug/profiler/collect.ts';
import { HttpResponse as Res } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';

const WIDE = '\u4e00'; // three bytes in UTF-8

test('regression: a profile of long logged messages and a long exception chain stays within its byte bound', async () => {
  const app = profiledApp({
    routes: [
      {
        name: 'chatty',
        path: '/chatty',
        controller: (request) => {
          for (let i = 0; i < 200; i++) request.logger.info('app', `${i} ${WIDE.repeat(9000)}`);
          return Res.json({ ok: true });
        },
      },
      {
        name: 'chatty_chain',
        path: '/chatty-chain',
        controller: (request) => {
          for (let i = 0; i < 200; i++) request.logger.info('app', `${i} ${WIDE.repeat(9000)}`);
          let error = new Error(WIDE.repeat(5000));
          for (let i = 0; i < 40; i++) error = new Error(`${i} ${WIDE.repeat(20000)}`, { cause: error });
          throw error;
        },
      },
    ],
  });
  for (const path of ['/chatty', '/chatty-chain']) {
    const response = await get(app, path);
    const profile = await profileOf(app, response);
    const bytes = Buffer.byteLength(JSON.stringify(profile));
    assert.ok(bytes <= PROFILE_LIMITS.profileBytes, `${path}: ${bytes} bytes stored`);
    assert.ok(profile.truncated.includes('long log messages and exception stacks'), `${path}: ${profile.truncated.join(', ')}`);
  }
  const chatty = await profileOf(app, await get(app, '/chatty'));
  const last = chatty.logs.filter((r) => r.channel === 'app').at(-1);
  assert.ok(last?.message.startsWith('199 ') && last.message.length < 1024, 'the last records are kept, cut');
});
