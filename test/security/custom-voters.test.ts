import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createApp,
  denyAccessUnlessGranted,
  getMember,
  HttpResponse,
  isGranted,
  signMemberToken,
  type KernelRequest,
  type Member,
  type RouteDefinition,
  type Voter,
} from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';
import { get, profiledApp, profileOf } from '../profiler/support.ts';
import { accessDecisionsOf } from '../../src/security/member.ts';

const SECRET = 'custom-voters-secret';

class Post {
  constructor(readonly id: number, readonly author: string, readonly published: boolean) {}
}
const POSTS = new Map([[1, new Post(1, 'ada', false)], [2, new Post(2, 'grace', true)]]);

/** The PostVoter of Symfony's "Voters" documentation, ported. */
class PostVoter implements Voter {
  supports(attribute: string, subject: unknown): boolean {
    return (attribute === 'POST_VIEW' || attribute === 'POST_EDIT') && subject instanceof Post;
  }
  voteOnAttribute(attribute: string, subject: unknown, member: Member | null): boolean {
    const post = subject as Post;
    if (attribute === 'POST_VIEW' && post.published) return true;
    return member !== null && member.memberId === post.author;
  }
}

/** An attribute decided on the request itself, as an access_control rule's subject is. */
const internalNetwork: Voter = {
  supports: (attribute, subject) => attribute === 'INTERNAL_NETWORK' && subject !== null && typeof subject === 'object',
  voteOnAttribute: (_attribute, _subject, _member, request) => request.headers.get('x-probe') === 'internal',
};

const post = { post: (id: unknown) => POSTS.get(Number(id)) ?? null };
const routes: RouteDefinition[] = [
  { name: 'post_edit', path: '/posts/:post/edit', controller: () => HttpResponse.text('edit form'), options: { converters: post, isGranted: { attributes: 'POST_EDIT', subject: 'post' } } },
  { name: 'post_show', path: '/posts/:post', controller: () => HttpResponse.text('post'), options: { converters: post, security: (c) => c.isGranted('POST_VIEW', c.params.post) } },
  { name: 'post_delete', path: '/posts/:post/delete', controller: (request: KernelRequest) => {
    const subject = request.attributes.get('post');
    denyAccessUnlessGranted(request, 'POST_EDIT', subject, 'Only the author deletes a post.');
    return HttpResponse.json({ deleted: (subject as Post).id, canView: isGranted(request, 'POST_VIEW', subject), memberForm: isGranted(getMember(request), 'POST_VIEW') });
  }, options: { converters: post } },
  { name: 'lost_subject', path: '/lost/:post', controller: () => HttpResponse.text('never'), options: { isGranted: { attributes: 'POST_EDIT', subject: 'article' } } },
  { name: 'health', path: '/internal/health', controller: () => HttpResponse.text('up') },
];

async function as(memberId: string, roles: string[] = []): Promise<{ headers: Record<string, string> }> {
  return { headers: { accept: 'application/json', authorization: `Bearer ${await signMemberToken(SECRET, { memberId, roles })}` } };
}

function votersApp(extra: Parameters<typeof createApp>[0] = {}) {
  return testApp({ env: 'prod', debug: false, routes, voters: [new PostVoter(), internalNetwork], environment: { APP_SECRET: SECRET }, ...extra }).app;
}

test('the isGranted option with a subject asks the app\'s voters about the converted route parameter', async () => {
  const app = votersApp();
  assert.equal((await send(app, '/posts/1/edit', await as('ada'))).status, 200, 'the author');
  const other = await send(app, '/posts/1/edit', await as('grace'));
  assert.equal(other.status, 403);
  assert.match(await other.text(), /Forbidden/);
  assert.equal((await send(app, '/posts/1/edit', { headers: { accept: 'application/json' } })).status, 401, 'anonymous: the entry point');
});

test('the 403 of an isGranted option with a subject names it, as Sensio\'s message does', async () => {
  const app = createApp({ env: 'dev', logSink: () => {}, environment: { APP_SECRET: SECRET }, routes, voters: [new PostVoter()] });
  const denied = await send(app, '/posts/1/edit', await as('grace'));
  assert.equal(denied.status, 403);
  assert.equal(decodeURIComponent(denied.headers.get('x-debug-exception') ?? ''), 'Access Denied by controller annotation @IsGranted("POST_EDIT", post)');
});

test('the security option\'s isGranted, isGranted(request, …) and denyAccessUnlessGranted ask the voters too; the member form asks the role voters only', async () => {
  const app = votersApp();
  assert.equal((await send(app, '/posts/2', await as('ada'))).status, 200, 'published: anyone may view');
  assert.equal((await send(app, '/posts/1', await as('grace'))).status, 403, 'a draft: only its author');
  assert.equal((await send(app, '/posts/1', await as('ada'))).status, 200);
  const deleted = await send(app, '/posts/1/delete', await as('ada'));
  assert.deepEqual(await deleted.json(), { deleted: 1, canView: true, memberForm: false });
  const refused = await send(app, '/posts/2/delete', await as('ada'));
  assert.equal(refused.status, 403);
});

test('access control roles may name an attribute only the app\'s voters decide, asked with the request as subject; without voters that rule is refused', async () => {
  const rule = [{ path: '^/internal', roles: 'INTERNAL_NETWORK' }];
  const app = votersApp({ accessControl: rule });
  assert.equal((await send(app, '/internal/health', { headers: { 'x-probe': 'internal' } })).status, 200);
  assert.equal((await send(app, '/internal/health', { headers: { accept: 'application/json' } })).status, 401);
  assert.throws(() => createApp({ logSink: () => {}, routes, accessControl: rule }), /"roles" has "INTERNAL_NETWORK", which no voter decides/);
});

test('a voter cannot take away what a role grants: the affirmative strategy grants when any voter does', async () => {
  const denyAll: Voter = { supports: () => true, voteOnAttribute: () => false };
  const app = votersApp({ voters: [denyAll], accessControl: [{ path: '^/internal', roles: 'ROLE_OPS' }] });
  assert.equal((await send(app, '/internal/health', await as('ops', ['ROLE_OPS']))).status, 200);
  assert.equal((await send(app, '/internal/health', await as('dev', ['ROLE_DEV']))).status, 403);
});

test('an isGranted subject that names no request attribute is the app\'s error, with Sensio\'s message', async () => {
  const lines: string[] = [];
  const app = createApp({ env: 'prod', debug: false, logSink: (l) => lines.push(l), environment: { APP_SECRET: SECRET }, routes, voters: [new PostVoter()] });
  assert.equal((await send(app, '/lost/1', await as('ada'))).status, 500);
  assert.ok(lines.some((l) => l.includes('request.CRITICAL: Uncaught Exception Error: "Could not find the subject "article" for the @IsGranted annotation. Try adding a "$article" argument to your controller method."')), 'the expected log line');
});

test('voters and isGranted subjects of the wrong shape are refused when the app is built', () => {
  assert.throws(() => createApp({ logSink: () => {}, voters: new PostVoter() as never }), /createApp option "voters" must be a list of voters/);
  assert.throws(() => createApp({ logSink: () => {}, voters: [{ supports: () => true }] as never }), /voters\[0\] has no voteOnAttribute\(\) function/);
  assert.throws(
    () => createApp({ logSink: () => {}, routes: [{ name: 'x', path: '/x', controller: () => HttpResponse.text('x'), options: { isGranted: { attributes: 'POST_EDIT', subject: 7 as never } } }] }),
    /The "isGranted" option of route "x" names its subject by a route parameter or request attribute \('post'\); got 7/,
  );
});

test('in debug mode the profiler\'s security panel has the access decision log: attributes, subject in one line (secrets masked), verdict, at most 100', async () => {
  const app = profiledApp({
    environment: { APP_SECRET: SECRET },
    voters: [new PostVoter()],
    accessControl: [{ path: '^/posts', roles: 'IS_AUTHENTICATED_FULLY' }],
    routes: [
      ...routes,
      { name: 'many', path: '/posts/:post/many', options: { converters: post }, controller: (request: KernelRequest) => {
        isGranted(request, 'CREDENTIALS', { login: 'ada', password: 'hunter2' });
        for (let i = 0; i < 150; i++) isGranted(request, 'POST_VIEW', request.attributes.get('post'));
        return HttpResponse.text('many');
      } },
    ],
  });
  const edited = await profileOf(app, await get(app, '/posts/1/edit', await as('ada')));
  assert.deepEqual(edited.security.decisions, [
    { attributes: ['IS_AUTHENTICATED_FULLY'], subject: 'Request GET /posts/1/edit', granted: true },
    { attributes: ['POST_EDIT'], subject: 'Post {"id":1,"author":"ada","published":false}', granted: true },
  ]);
  const panel = await (await get(app, `/_profiler/${edited.token}?panel=security`)).text();
  assert.match(panel, /<h3>Access decision log<\/h3><table class="pf-decisions">/);
  assert.match(panel, /<span class="pf-badge pf-badge-success">ACCESS GRANTED<\/span><\/td><td class="pf-mono">POST_EDIT<\/td><td class="pf-mono">Post \{&quot;id&quot;:1,/);
  const many = await profileOf(app, await get(app, '/posts/2/many', await as('ada')));
  assert.equal(many.security.decisions!.length, 100);
  assert.equal(many.security.decisions![1]!.granted, false);
  assert.doesNotMatch(many.security.decisions![1]!.subject, /hunter2/);
  const anonymous = await profileOf(app, await get(app, '/nowhere'));
  assert.deepEqual(anonymous.security.decisions, []);
  assert.match(await (await get(app, `/_profiler/${anonymous.token}?panel=security`)).text(), /No access decisions were made\./);
});

test('outside debug mode no access decision is kept', async () => {
  const app = votersApp({
    routes: [{ name: 'count', path: '/count', controller: (request: KernelRequest) => {
      isGranted(request, 'POST_VIEW', POSTS.get(2));
      return HttpResponse.json({ kept: accessDecisionsOf(request).kept.length });
    } }],
  });
  assert.deepEqual(await (await send(app, '/count')).json(), { kept: 0 });
});

/** A debug app whose controller at /ask asks what `ask` asks; answers the profile of one GET. */
async function decisionsOf(ask: (request: KernelRequest) => void, extra: Parameters<typeof createApp>[0] = {}, path = '/ask') {
  const app = profiledApp({
    environment: { APP_SECRET: SECRET },
    voters: [new PostVoter()],
    routes: [{ name: 'ask', path: '/ask{;*rest}', controller: (request: KernelRequest) => { ask(request); return HttpResponse.text('asked'); } }],
    ...extra,
  });
  const response = await get(app, path, await as('ada'));
  return { app, response, profile: await profileOf(app, response) };
}

test('regression: the access decision log showed the request path of an access rule\'s decision unmasked (;password=…), where the rest of the profile masks it', async () => {
  const { profile } = await decisionsOf(() => {}, { accessControl: [{ path: '^/ask', roles: 'IS_AUTHENTICATED_FULLY' }] }, '/ask;password=hunter2hunter2');
  assert.equal(profile.security.decisions!.length, 1);
  assert.doesNotMatch(profile.security.decisions![0]!.subject, /hunter2/);
  assert.match(profile.security.decisions![0]!.subject, /^Request GET \/ask;password=\*\*\*/);
});

test('regression: a subject reaching the session store put other visitors\' session ids into the decision log; a subject is shown one level deep, a session as "Session"', async () => {
  const { profile } = await decisionsOf((request) => {
    isGranted(request, 'CART_CHECKOUT', request.getSession());
    isGranted(request, 'CART_CHECKOUT', { cart: { items: [1, 2] }, owner: 'ada', apiKey: 'k-123', note: 'x'.repeat(500) });
  });
  const [session, cart] = profile.security.decisions!;
  assert.equal(session!.subject, 'Session');
  assert.equal(cart!.subject, `{"cart":"[Object]","owner":"ada","apiKey":"***","note":"${'x'.repeat(100)}…"}`);
});

test('regression: a non-string attribute was a 500 for members ("attribute.startsWith is not a function") and denied anonymous requests; the role voters abstain on it', async () => {
  const { response, profile } = await decisionsOf((request) => {
    assert.equal(isGranted(request, { password: 'hunter2' } as never), false);
    denyAccessUnlessGranted(request, 42 as never);
  });
  assert.equal(response.status, 403);
  assert.deepEqual(profile.security.decisions!.map((d) => d.attributes), [['{"password":"***"}'], ['42']]);
});

test('regression: a subject whose constructor could not be read (a throwing getter, a Proxy) lost the whole profile', async () => {
  const hostile = new Proxy({}, { get() { throw new Error('no reading'); }, ownKeys() { throw new Error('no keys'); } });
  const { profile } = await decisionsOf((request) => void isGranted(request, 'POST_VIEW', hostile));
  assert.equal(profile.security.decisions![0]!.subject, '[unreadable]');
});

test('regression: a large subject was walked and encoded whole (seconds of a frozen event loop); its first 20 fields are shown', async () => {
  const wide: Record<string, number> = {};
  for (let i = 0; i < 200_000; i++) wide[`f${i}`] = i;
  const { profile } = await decisionsOf((request) => void isGranted(request, 'POST_VIEW', wide));
  assert.match(profile.security.decisions![0]!.subject, /^\{"f0":0,"f1":1,.*"f19":19,"…":"199980 more fields"\}$/);
});

test('regression: an access rule granted by allowIf was logged as ACCESS DENIED (its roles alone), and a rule with allowIf only with no attributes', async () => {
  const probe = ({ request }: { request: KernelRequest }) => request.headers.get('x-probe') === '1';
  const app = profiledApp({ environment: { APP_SECRET: SECRET }, routes, accessControl: [{ path: '^/internal', roles: 'ROLE_OPS', allowIf: probe }] });
  const profile = await profileOf(app, await get(app, '/internal/health', { headers: { 'x-probe': '1' } }));
  assert.deepEqual(profile.security.decisions, [{ attributes: ['ROLE_OPS', 'allowIf(probe)'], subject: 'Request GET /internal/health', granted: true }]);
});

test('regression: the decision log stopped at 100 without a word; the panel says how many more were made', async () => {
  const { app, profile } = await decisionsOf((request) => {
    for (let i = 0; i < 130; i++) isGranted(request, 'POST_VIEW', POSTS.get(2));
  });
  assert.equal(profile.security.decisions!.length, 100);
  assert.equal(profile.security.decisionsDropped, 30);
  assert.match(await (await get(app, `/_profiler/${profile.token}?panel=security`)).text(), /… 30 more decisions, not kept \(a profile keeps the first 100\)/);
});

test('regression: an accessDeniedHandler answering something that is no response was a 500; Symfony keeps the 403', async () => {
  const app = votersApp({ firewalls: [{ name: 'main', accessDeniedHandler: () => 'denied' as never }] });
  assert.equal((await send(app, '/posts/1/edit', await as('grace'))).status, 403);
});

test('regression: an async voteOnAttribute never granted and nothing said why; it is the app\'s error', async () => {
  const lines: string[] = [];
  const asyncVoter: Voter = { supports: () => true, voteOnAttribute: (async () => true) as never };
  const app = createApp({ env: 'prod', debug: false, logSink: (l) => lines.push(l), environment: { APP_SECRET: SECRET }, routes, voters: [asyncVoter] });
  assert.equal((await send(app, '/posts/2', await as('ada'))).status, 500);
  assert.ok(lines.some((l) => l.includes("A voter's voteOnAttribute() must answer synchronously")), 'the expected log line');
});
